"""`torch.no_grad()` written as a statement instead of a `with` block (GG107), and fixes.

Source (rewritten in our own words, structure kept):
* https://github.com/kuprel/min-dalle/pull/24 - the generation method called `torch.no_grad()`
  on a line of its own; "simply calling no_grad() will not disable gradients"; the fix used
  `torch.set_grad_enabled(False)`, which cut memory use significantly.
"""

import torch
from torch import nn


class MinDalle:
    def __init__(self) -> None:
        self.encoder = nn.Linear(8, 8)
        self.decoder = nn.Linear(8, 8)

    def generate_image(self, text_tokens):
        torch.no_grad()  # expect: GG107
        encoder_state = self.encoder(text_tokens)
        return self.decoder(encoder_state)

    def generate_image_fixed(self, text_tokens):
        torch.set_grad_enabled(False)
        encoder_state = self.encoder(text_tokens)
        image = self.decoder(encoder_state)
        torch.set_grad_enabled(True)
        return image

    @torch.no_grad()
    def generate_image_decorated(self, text_tokens):
        return self.decoder(self.encoder(text_tokens))


def sample(model, prompts):
    torch.inference_mode()  # expect: GG107
    return [model(p) for p in prompts]


def sample_fixed(model, prompts):
    with torch.inference_mode():
        return [model(p) for p in prompts]
