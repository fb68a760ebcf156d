"""GG601 - the training loop steps the optimizer but never clears the gradients.

Module-level example script: one linear layer fitted to two fixed samples with
SGD.  The loop calls loss.backward() and optimizer.step() but never
optimizer.zero_grad(), so each .grad holds the sum of every earlier gradient.
The updates overshoot: the loss goes down for a few epochs and then climbs again.
No error is raised (silent).

Modelled on: https://github.com/IBM/aihwkit/issues/446
"""
import os
import tempfile

# Imports from PyTorch.
import torch
from torch import Tensor
from torch.nn import Linear
from torch.nn.functional import mse_loss
from torch.optim import SGD

torch.manual_seed(2022)

# Prepare the datasets (input and expected output).
x = Tensor([[0.1, 0.2, 0.4, 0.3], [0.2, 0.1, 0.1, 0.3]])
y = Tensor([[1.0, 0.5], [0.7, 0.3]])

# Define a single-layer network. (The original used a hardware-aware layer.)
model = Linear(4, 2)

# Define an optimizer and the number of epochs.
LEARNING_RATE = 0.1
EPOCHS = 10
opt = SGD(model.parameters(), lr=LEARNING_RATE)

losses = []
for epoch in range(EPOCHS):  # bug: GG601
    # Add the training Tensor to the model (input).
    pred = model(x)
    # Add the expected output Tensor.
    loss = mse_loss(pred, y)
    # Run training (backward propagation).
    loss.backward()

    opt.step()
    losses.append(loss.item())
    print("Loss error: {:.16f}".format(loss))


def report(net, inputs, targets):
    """Print the final predictions next to the targets, like the original example."""
    net.eval()
    with torch.no_grad():
        final = net(inputs)
    for i, (p_row, t_row) in enumerate(zip(final, targets)):
        p_txt = ", ".join(f"{v:.3f}" for v in p_row.tolist())
        t_txt = ", ".join(f"{v:.3f}" for v in t_row.tolist())
        print(f"sample {i}: predicted [{p_txt}] expected [{t_txt}]")
    return final


def save_checkpoint(net, optimizer, path):
    torch.save({"model": net.state_dict(), "optimizer": optimizer.state_dict(),
                "epochs": EPOCHS, "lr": LEARNING_RATE}, path)


final_pred = report(model, x, y)
with tempfile.TemporaryDirectory() as tmp_dir:
    save_checkpoint(model, opt, os.path.join(tmp_dir, "simple_layer.pt"))


if __name__ == "__main__":
    best = min(losses)
    # the loss should keep going down on two fixed samples; here it turns back up
    if losses[-1] > 2 * best and losses.index(best) < EPOCHS - 1:
        print(f"BUGGY: loss fell to {best:.4f} then rose to {losses[-1]:.4f} (stale gradients accumulate)")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
