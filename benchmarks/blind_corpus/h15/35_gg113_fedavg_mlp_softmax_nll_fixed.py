"""GG113 - FedAvg MLP ends in nn.Softmax, clients train it with NLLLoss.

Category: GG113 (softmax output given to nll_loss).
The mistake: the federated MLP's forward ends with nn.Softmax(dim=1), and
each client's LocalUpdate uses nn.NLLLoss, which expects log-probabilities.
NLLLoss just negates the picked entry, so the "loss" is minus a
probability: always in (-1, 0), it decreases by pushing one probability up
with a vanishing, badly scaled gradient.  Silent: training runs and logs
negative losses.
This file: FIXED version - the model ends in nn.LogSoftmax, which is what
NLLLoss expects.
Modelled on: https://github.com/AshwinRJ/Federated-Learning-PyTorch/issues/30
"""
import copy

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Subset, TensorDataset


class Args:
    epochs = 2          # global rounds
    num_users = 4
    frac = 0.5
    local_ep = 1
    local_bs = 8
    lr = 0.01
    dim_in = 28
    dim_hidden = 32
    num_classes = 10


class MLP(nn.Module):
    def __init__(self, dim_in, dim_hidden, dim_out):
        super().__init__()
        self.layer_input = nn.Linear(dim_in, dim_hidden)
        self.relu = nn.ReLU()
        self.dropout = nn.Dropout()
        self.layer_hidden = nn.Linear(dim_hidden, dim_out)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, x):
        x = x.view(-1, x.shape[1])
        x = self.dropout(self.relu(self.layer_input(x)))
        return self.softmax(self.layer_hidden(x))


class LocalUpdate:
    def __init__(self, args, dataset, idxs):
        self.args = args
        self.trainloader = DataLoader(Subset(dataset, idxs), batch_size=args.local_bs, shuffle=True)
        self.criterion = nn.NLLLoss()

    def update_weights(self, model, global_round):
        model.train()
        epoch_loss = []
        optimizer = torch.optim.SGD(model.parameters(), lr=self.args.lr, momentum=0.5)
        for it in range(self.args.local_ep):
            batch_loss = []
            for batch_idx, (images, labels) in enumerate(self.trainloader):
                model.zero_grad()
                log_probs = model(images)
                loss = self.criterion(log_probs, labels)  # fixed: GG113
                loss.backward()
                optimizer.step()
                batch_loss.append(loss.item())
            epoch_loss.append(sum(batch_loss) / len(batch_loss))
        return model.state_dict(), sum(epoch_loss) / len(epoch_loss)


def average_weights(w):
    w_avg = copy.deepcopy(w[0])
    for key in w_avg.keys():
        for i in range(1, len(w)):
            w_avg[key] += w[i][key]
        w_avg[key] = torch.div(w_avg[key], len(w))
    return w_avg


def main():
    torch.manual_seed(0)
    args = Args()
    dataset = TensorDataset(torch.randn(64, args.dim_in), torch.randint(0, args.num_classes, (64,)))
    user_groups = {u: list(range(u * 16, (u + 1) * 16)) for u in range(args.num_users)}
    global_model = MLP(args.dim_in, args.dim_hidden, args.num_classes)
    train_loss = []
    for epoch in range(args.epochs):
        local_weights, local_losses = [], []
        m = max(int(args.frac * args.num_users), 1)
        idxs_users = torch.randperm(args.num_users)[:m].tolist()
        for idx in idxs_users:
            local = LocalUpdate(args, dataset, user_groups[idx])
            w, loss = local.update_weights(copy.deepcopy(global_model), epoch)
            local_weights.append(copy.deepcopy(w))
            local_losses.append(copy.deepcopy(loss))
        global_model.load_state_dict(average_weights(local_weights))
        train_loss.append(sum(local_losses) / len(local_losses))
        print(f"round {epoch + 1}: avg training loss {train_loss[-1]:.4f}")
    return train_loss


if __name__ == "__main__":
    train_loss = main()
    assert all(l > 0 for l in train_loss)
    print("FIXED: ok")
