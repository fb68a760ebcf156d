"""`requires_grad = False` on a computed tensor, meant as "stop gradients here".

Only leaves have a settable flag: on a tensor with a grad_fn, turning it off raises "you can
only change requires_grad flags of leaf variables" (checked with torch 2.13.0), as turning
it on does. `y = y.detach()` is what the line means. A detached tensor is a leaf, and
setting its flag is allowed. Modelled on a DQN target computed with a learned scale and
then "frozen" this way, from a blind corpus a helper wrote for the team.
"""

import torch

scale = torch.ones(3, requires_grad=True)


def bootstrap_target(rewards, next_values, gamma=0.99):
    target = rewards + gamma * next_values * scale
    target.requires_grad = False  # expect: GG401
    return target


def bootstrap_target_detached(rewards, next_values, gamma=0.99):
    target = (rewards + gamma * next_values * scale).detach()
    target.requires_grad = False
    return target


if __name__ == "__main__":
    try:
        bootstrap_target(torch.ones(3), torch.ones(3))
    except RuntimeError as error:
        assert "only change requires_grad flags of leaf variables" in str(error)
    else:
        raise AssertionError("expected the flag change to fail")
    assert not bootstrap_target_detached(torch.ones(3), torch.ones(3)).requires_grad
