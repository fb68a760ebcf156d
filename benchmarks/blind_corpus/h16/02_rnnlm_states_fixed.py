"""GG201: LSTM (h, c) state carried from one BPTT chunk into the next without detaching.

A word-level language model is trained with truncated backprop through time: the corpus
is one long stream per batch row, cut into chunks of `seq_length`. The state returned for
chunk k is passed straight in as the initial state of chunk k+1, so the graph of chunk k+1
hangs off the graph of chunk k, whose saved tensors were freed by the previous backward().
Torch raises: RuntimeError: Trying to backward through the graph a second time (or directly
access saved tensors after they have already been freed) ...

Modelled on: https://github.com/yunjey/pytorch-tutorial/issues/90

FIXED VERSION: the (h, c) state is detached at the start of every chunk (truncated BPTT).
"""
import torch
import torch.nn as nn

# Hyper-parameters
embed_size = 32
hidden_size = 64
num_layers = 1
num_epochs = 1
batch_size = 4
seq_length = 8
learning_rate = 0.002
device = torch.device("cpu")


class Corpus(object):
    """Stand-in for the text corpus: random token ids shaped (batch_size, n_steps)."""

    def __init__(self, vocab_size=60):
        self.vocab_size = vocab_size

    def get_data(self, n_tokens, batch_size):
        ids = torch.randint(0, self.vocab_size, (n_tokens,))
        num_batches = ids.size(0) // batch_size
        ids = ids[:num_batches * batch_size]
        return ids.view(batch_size, -1)


class RNNLM(nn.Module):
    def __init__(self, vocab_size, embed_size, hidden_size, num_layers):
        super(RNNLM, self).__init__()
        self.embed = nn.Embedding(vocab_size, embed_size)
        self.lstm = nn.LSTM(embed_size, hidden_size, num_layers, batch_first=True)
        self.linear = nn.Linear(hidden_size, vocab_size)
        self.init_weights()

    def init_weights(self):
        self.embed.weight.data.uniform_(-0.1, 0.1)
        self.linear.bias.data.fill_(0)
        self.linear.weight.data.uniform_(-0.1, 0.1)

    def forward(self, x, h):
        x = self.embed(x)
        out, (h, c) = self.lstm(x, h)
        out = out.reshape(out.size(0) * out.size(1), out.size(2))
        out = self.linear(out)
        return out, (h, c)


corpus = Corpus()
ids = corpus.get_data(n_tokens=4 * 8 * 5 + 4, batch_size=batch_size)
vocab_size = corpus.vocab_size
num_batches = ids.size(1) // seq_length

model = RNNLM(vocab_size, embed_size, hidden_size, num_layers).to(device)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)


def detach(states):
    return [state.detach() for state in states]


def main():
    for epoch in range(num_epochs):
        # Set initial hidden and cell states
        states = (torch.zeros(num_layers, batch_size, hidden_size).to(device),
                  torch.zeros(num_layers, batch_size, hidden_size).to(device))

        for i in range(0, ids.size(1) - seq_length, seq_length):
            inputs = ids[:, i:i + seq_length].to(device)
            targets = ids[:, (i + 1):(i + 1) + seq_length].to(device)

            states = detach(states)  # fixed: GG201
            outputs, states = model(inputs, states)
            loss = criterion(outputs, targets.reshape(-1))

            model.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            optimizer.step()

            step = (i + 1) // seq_length
            if step % 100 == 0:
                print('Epoch [{}/{}], Step[{}/{}], Loss: {:.4f}, Perplexity: {:5.2f}'
                      .format(epoch + 1, num_epochs, step, num_batches, loss.item(),
                              torch.exp(loss).item()))


if __name__ == "__main__":
    main()
    print("FIXED: ok")
