"""Source-separation tutorial: mask learning with in-place data normalisation.

Modelled on: https://github.com/source-separation/tutorial/issues/18 (counterpart)

Look-alike: in-place operations appear in the same loop as in the report, but
they act on the mixture spectrogram (plain data, no requires_grad) and on the
mask only inside an ``@torch.no_grad()`` update helper, so autograd is never
asked to track an in-place change of a leaf.
"""
import torch


def make_spectrograms(n_freq=16, n_frames=40):
    gen = torch.Generator().manual_seed(0)
    t = torch.arange(n_frames).float()
    f = torch.arange(n_freq).float()[:, None]
    vocals = torch.relu(torch.sin(0.3 * t) * torch.exp(-((f - 8) ** 2) / 10))
    accomp = torch.rand(n_freq, n_frames, generator=gen) * (f < 5).float()
    return vocals + accomp, vocals


@torch.no_grad()
def sgd_update(params, learning_rate):
    for p in params:
        p -= learning_rate * p.grad
        p.grad.zero_()


def learn_mask(mix_spec, source_spec, n_iter=50, learning_rate=50.0):
    scale = mix_spec.max()
    mix_spec = mix_spec.clone()
    mix_spec /= scale                      # in-place on data, no grad involved
    source_spec = source_spec / scale
    mask = torch.zeros_like(mix_spec, requires_grad=True)
    history = []
    for _ in range(n_iter):
        estimate = mix_spec * torch.sigmoid(mask)
        loss = (estimate - source_spec).abs().mean()
        loss.backward()
        sgd_update([mask], learning_rate)
        history.append(loss.item())
    return mask, history


if __name__ == "__main__":
    mix, vocals = make_spectrograms()
    mask, history = learn_mask(mix, vocals)
    assert history[-1] < history[0]
    print("OK")
