"""Truncated backpropagation through time over one long sequence, chunk by chunk."""
import torch
import torch.nn.functional as F

from seqmodels.rnn import CharRNN

torch.manual_seed(0)
model = CharRNN()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
data = torch.randint(0, 10, (4, 41))
state = None
for step in range(4):
    chunk = data[:, step * 10 : (step + 1) * 10]
    target = data[:, step * 10 + 1 : (step + 1) * 10 + 1]
    optimizer.zero_grad()
    logits, state = model(chunk, state)
    loss = F.cross_entropy(logits.reshape(-1, 10), target.reshape(-1))
    loss.backward()
    optimizer.step()
    state = tuple(s.detach() for s in state)
print("param-grad-norm", sum(float(p.grad.norm()) for p in model.parameters()))
