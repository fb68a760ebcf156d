"""Per-sample loss terms that reach backward() through a reduction over several dims or a dict
of weighted terms (GG501).

Two reports show the shapes. In neuraloperator/neuraloperator#160 (and the issue #103 it
fixes) a loss reduced only over some of its dimensions (a `reduce_dims` list) left one value
per channel, and training stopped at backward(). In tding1/CDFI#15 the weighted terms of a
loss were collected and summed, but one term still had two elements, so the sum did too.
Either way backward() without `gradient=` raises "grad can be implicitly created only for
scalar outputs". Written here in our own words.

The batch size survives convolutions (of a width given by a parameter too), `squeeze(1)`,
`torch.stft`, a module's `forward` and a helper given the batch, so a distance per clip is
caught too. The look-alikes reduce the rest of the way, reduce over every
dimension, keep dims of a tensor holding one element, measure a single clip, or leave the
per-sample term out of the sum (by a weight dict without its key, or by a condition that is
not known).
"""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
WEIGHTS = {"recon": 1.0, "spec": 0.5}


def per_sample_over_tuple_dims():
    head = nn.Linear(5, 5)
    frames, target = torch.randn(8, 3, 5), torch.randn(8, 3, 5)
    per_sample = F.mse_loss(head(frames), target, reduction="none").mean(dim=(1, 2))
    per_sample.backward()  # expect: GG501


def dict_values_summed():
    head = nn.Linear(4, 6)
    features, target = torch.randn(10, 4), torch.randn(10, 6)
    out = head(features)
    terms = {
        "recon": F.l1_loss(out, target),
        "spec": (out - target).pow(2).sum(dim=(-1,)),
    }
    total = sum(terms.values())
    total.backward()  # expect: GG501


def scale_and_backward(scaler, loss):
    scaler.scale(loss).backward()  # expect: GG501


def weighted_items_through_a_helper():
    head = nn.Linear(4, 6)
    features, target = torch.randn(6, 2, 4), torch.randn(6, 2, 6)
    out = head(features)
    output = {
        "recon": F.l1_loss(out, target),
        "spec": F.mse_loss(out, target, reduction="none").sum((1, -1), keepdim=True),
        "logged": out.detach().abs().mean(),
    }
    output["loss"] = sum(WEIGHTS[k] * v for k, v in output.items() if k in WEIGHTS)
    scale_and_backward(torch.amp.GradScaler("cpu", enabled=False), output["loss"])


def spectral_distance_per_clip():
    codec = nn.Sequential(nn.Conv1d(1, 8, 5, padding=2), nn.ELU(), nn.Conv1d(8, 1, 5, padding=2))
    signal, window = torch.randn(4, 1, 256), torch.hann_window(64)
    pred = torch.stft(codec(signal).squeeze(1), 64, window=window, return_complex=True).abs()
    ref = torch.stft(signal.squeeze(1), 64, window=window, return_complex=True).abs()
    distance = F.mse_loss(pred, ref, reduction="none").mean(dim=(1, 2))
    distance.backward()  # expect: GG501


def spectral_distance_of_one_clip():
    codec = nn.Sequential(nn.Conv1d(1, 8, 5, padding=2), nn.ELU(), nn.Conv1d(8, 1, 5, padding=2))
    signal, window = torch.randn(1, 1, 256), torch.hann_window(64)
    pred = torch.stft(codec(signal).squeeze(1), 64, window=window, return_complex=True).abs()
    ref = torch.stft(signal.squeeze(1), 64, window=window, return_complex=True).abs()
    distance = F.mse_loss(pred, ref, reduction="none").mean(dim=(1, 2))
    distance.backward()


class Codec(nn.Module):
    def __init__(self, channels=8):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv1d(1, channels, 5, padding=2), nn.ELU())
        self.decoder = nn.Conv1d(channels, 1, 5, padding=2)

    def forward(self, x):
        return {"audio": self.decoder(self.encoder(x))}


def distance_per_clip(pred, target):
    return (pred - target).abs().mean(dim=(1, 2))


def codec_batch_through_forward_and_helper():
    codec, clips = Codec(), torch.randn(4, 1, 256)
    loss = distance_per_clip(codec(clips)["audio"], clips)
    loss.backward()  # expect: GG501


def codec_single_clip_through_forward_and_helper():
    codec, clips = Codec(), torch.randn(1, 1, 256)
    loss = distance_per_clip(codec(clips)["audio"], clips)
    loss.backward()


def unreduced_then_averaged():
    head = nn.Linear(5, 5)
    frames, target = torch.randn(8, 3, 5), torch.randn(8, 3, 5)
    loss = F.mse_loss(head(frames), target, reduction="none").mean()
    loss.backward()


def every_dim_in_the_tuple():
    head = nn.Linear(5, 5)
    frames, target = torch.randn(8, 3, 5), torch.randn(8, 3, 5)
    loss = F.mse_loss(head(frames), target, reduction="none").mean(dim=(0, 1, 2))
    loss.backward()


def kept_dims_of_one_element():
    weight = torch.randn(1, 1, 3, requires_grad=True)
    score = (weight * 2).mean(dim=(1, 2), keepdim=True)
    score.backward()


def per_sample_term_not_weighted():
    head = nn.Linear(4, 6)
    features, target = torch.randn(6, 4), torch.randn(6, 6)
    out = head(features)
    output = {"recon": F.l1_loss(out, target), "per_row": (out - target).abs().mean(dim=(1,))}
    output["loss"] = sum(WEIGHTS[k] * v for k, v in output.items() if k in WEIGHTS)
    output["loss"].backward()


def per_sample_term_left_out_by_an_unknown_choice(active):
    head = nn.Linear(4, 6)
    features, target = torch.randn(6, 4), torch.randn(6, 6)
    out = head(features)
    output = {"recon": F.l1_loss(out, target), "per_row": (out - target).abs().mean(dim=(1,))}
    total = sum(v for k, v in output.items() if k in active)
    total.backward()


if __name__ == "__main__":
    for case in (
        unreduced_then_averaged,
        every_dim_in_the_tuple,
        kept_dims_of_one_element,
        per_sample_term_not_weighted,
        spectral_distance_of_one_clip,
        codec_single_clip_through_forward_and_helper,
    ):
        case()
    per_sample_term_left_out_by_an_unknown_choice({"recon"})
    for case in (
        per_sample_over_tuple_dims,
        dict_values_summed,
        weighted_items_through_a_helper,
        spectral_distance_per_clip,
        codec_batch_through_forward_and_helper,
    ):
        try:
            case()
        except RuntimeError as error:
            assert "only for scalar outputs" in str(error), error
        else:
            raise AssertionError(case.__name__)
    print("as marked")
