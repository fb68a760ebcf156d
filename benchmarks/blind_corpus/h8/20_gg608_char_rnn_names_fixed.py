"""GG608 (fixed) - the optimizer is built on the model that computes the loss.

Originally `main()` created the optimizer from the module-level sanity-check
`rnn` while training ran `model`, so `optimizer.step()` updated a network the
loss never reaches and the trained model never changed.
Fix: `torch.optim.SGD(model.parameters(), ...)`.

Modelled on: https://github.com/spro/practical-pytorch/issues/9
"""
import random
import string

import torch
import torch.nn as nn

all_letters = string.ascii_letters + " .,;'"
n_letters = len(all_letters)
category_lines = {
    "English": ["Smith", "Brown", "Taylor", "Walker", "Wright"],
    "Italian": ["Rossi", "Russo", "Ferrari", "Esposito", "Bianchi"],
    "Japanese": ["Sato", "Suzuki", "Takahashi", "Tanaka", "Watanabe"],
}
all_categories = list(category_lines)
n_categories = len(all_categories)
n_hidden = 64
learning_rate = 0.005
n_iters = 60


def letter_to_index(letter):
    return all_letters.find(letter)


def line_to_tensor(line):
    tensor = torch.zeros(len(line), 1, n_letters)
    for li, letter in enumerate(line):
        tensor[li][0][letter_to_index(letter)] = 1
    return tensor


class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.i2o = nn.Linear(input_size + hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, input, hidden):
        combined = torch.cat((input, hidden), 1)
        hidden = torch.tanh(self.i2h(combined))
        output = self.softmax(self.i2o(combined))
        return output, hidden

    def initHidden(self):
        return torch.zeros(1, self.hidden_size)


# quick sanity check of the shapes
rnn = RNN(n_letters, n_hidden, n_categories)
_out, _ = rnn(line_to_tensor("Albert")[0], rnn.initHidden())
assert _out.shape == (1, n_categories)

criterion = nn.NLLLoss()


def random_training_example():
    category = random.choice(all_categories)
    line = random.choice(category_lines[category])
    category_tensor = torch.tensor([all_categories.index(category)], dtype=torch.long)
    return category, line, category_tensor, line_to_tensor(line)


def train(model, optimizer, category_tensor, line_tensor):
    hidden = model.initHidden()
    optimizer.zero_grad()
    for i in range(line_tensor.size(0)):
        output, hidden = model(line_tensor[i], hidden)
    loss = criterion(output, category_tensor)
    loss.backward()
    optimizer.step()  # fixed: GG608
    return output, loss.item()


def main():
    model = RNN(n_letters, n_hidden, n_categories)
    optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)
    before = {k: v.detach().clone() for k, v in model.state_dict().items()}
    current_loss = 0.0
    for it in range(1, n_iters + 1):
        category, line, category_tensor, line_tensor = random_training_example()
        output, loss = train(model, optimizer, category_tensor, line_tensor)
        current_loss += loss
        if it % 20 == 0:
            guess = all_categories[output.topk(1)[1].item()]
            print(f"{it} avg loss {current_loss / 20:.4f} {line} / {guess} "
                  f"{'ok' if guess == category else 'x (' + category + ')'}")
            current_loss = 0.0
    return model, before


def check_training():
    random.seed(0)
    torch.manual_seed(0)
    model, before = main()
    changed = [k for k, v in model.state_dict().items() if not torch.equal(v, before[k])]
    assert changed, "the model that produced the loss never changed: the optimizer steps a different RNN"


if __name__ == "__main__":
    check_training()
    print("FIXED: ok")
