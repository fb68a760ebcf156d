# -*- coding: utf-8 -*-
"""LSTM 分类训练脚本：三个常见的 autograd 错误（改编自 seeds/000 与 001）。"""

import torch
import torch.nn as nn


class LSTMModel(nn.Module):
    def __init__(self, input_dim, hidden_dim, output_dim):
        super(LSTMModel, self).__init__()
        self.hidden_dim = hidden_dim
        self.lstm = nn.LSTM(input_dim, hidden_dim)
        self.fc = nn.Linear(hidden_dim, output_dim)

    def forward(self, x, hidden=None):
        lstm_out, hidden = self.lstm(x, hidden)
        output = self.fc(lstm_out[-1, :, :])
        return output, hidden


model = LSTMModel(10, 20, 2)
# 网上流传的"解决方案"：把所有参数设为 requires_grad=True。参数本来就需要梯度，
# 这并不能修复被 no_grad 切断的计算图 🙃
for param in model.parameters():
    param.requires_grad = True
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

# 错误一：为了"省显存"，在 no_grad 下计算训练损失
for i in range(10):
    x = torch.randn(5, 3, 10)
    y = torch.LongTensor([0, 1, 0])
    with torch.no_grad():  # 省显存？ expect: GG101
        y_pred, _ = model(x)
        loss = loss_fn(y_pred, y)
    optimizer.zero_grad()
    loss.backward()  # RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
    optimizer.step()

# 错误二：过早调用 .item()
for i in range(10):
    x = torch.randn(5, 3, 10)
    y = torch.LongTensor([0, 1, 0])
    y_pred, _ = model(x)
    loss = loss_fn(y_pred, y).item()  # 方便打印 😅  # expect: GG102
    optimizer.zero_grad()
    loss.backward()  # AttributeError: 'float' object has no attribute 'backward'
    optimizer.step()

# 错误三：跨批次传递隐藏状态却不 detach（语句跨多行，诊断落在语句首行）
hidden = None
for i in range(10):
    x = torch.randn(5, 3, 10)
    y = torch.LongTensor([0, 1, 0])
    y_pred, hidden = model(  # expect: GG201
        x,
        hidden,
    )
    loss = loss_fn(y_pred, y)
    optimizer.zero_grad()
    loss.backward()  # RuntimeError: Trying to backward through the graph a second time
    optimizer.step()

# 正确写法：每个批次之后 detach，日志在 backward 之后取 .item()，评估放在 no_grad 里
hidden = None
for i in range(10):
    x = torch.randn(5, 3, 10)
    y = torch.LongTensor([0, 1, 0])
    y_pred, hidden = model(x, hidden)
    hidden = tuple(h.detach() for h in hidden)
    loss = loss_fn(y_pred, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"第 {i} 步：损失 {loss.item():.4f} ✅")

with torch.no_grad():
    y_pred, _ = model(torch.randn(5, 3, 10))
    print("预测：", y_pred.argmax(dim=1).tolist())
