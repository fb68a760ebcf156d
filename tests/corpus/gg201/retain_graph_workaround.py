"""`retain_graph=True` added to silence the error instead of detaching the state (GG201).

The graph then grows with every step, and after `opt.step()` changes the weights in place
the next backward raises "one of the variables needed for gradient computation has been
modified by an inplace operation".
"""

import torch

rnn = torch.nn.RNN(input_size=1, hidden_size=1, num_layers=1)
train_set_x = torch.tensor([[[1]], [[2]], [[3]], [[4]], [[5]]], dtype=torch.float32)
train_set_y = torch.tensor([[[2]], [[4]], [[6]], [[8]], [[10]]], dtype=torch.float32)
h0 = torch.tensor([[0]], dtype=torch.float32)
h_cur = h0
loss = torch.nn.MSELoss()
opt = torch.optim.Adadelta(rnn.parameters(), lr=0.01)

with torch.autograd.set_detect_anomaly(True):
    for i in range(5):
        opt.zero_grad()
        train_output, h_next = rnn(train_set_x[i], h_cur)
        rnn_loss = loss(train_output, train_set_y[i])
        rnn_loss.backward(retain_graph=True)
        opt.step()
        print(train_output)
        h_cur = h_next  # expect: GG201


lstm = torch.nn.LSTM(2, 6)
opt2 = torch.optim.SGD(lstm.parameters(), lr=0.1)
hidden = (torch.zeros(1, 1, 6), torch.zeros(1, 1, 6))
for i in range(10):
    out, hidden = lstm(torch.randn(3, 1, 2), hidden)  # expect: GG201
    objective = out.sum()
    opt2.zero_grad()
    objective.backward(retain_graph=True)
    opt2.step()
