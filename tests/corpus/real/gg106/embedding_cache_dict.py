"""A retrieval fine-tuning script caches the frozen text encoder's embeddings in a dict keyed
by the sample id, filling it under `torch.inference_mode()`; training multiplies the cached
embedding with the trainable projection (`emb @ proj`), which saves the inference tensor for
the projection's gradient: "Inference tensors cannot be saved for backward".

Sources (rewritten in our own words, structure kept):
* https://github.com/hiyouga/FastEdit/issues/26 - a value computed in inference mode and
  reused in an optimisation loop raises the error.
* https://github.com/facebookresearch/dinov2/issues/472
"""

import torch
from torch import nn

encoder = nn.Linear(6, 4)
proj = torch.randn(4, 4, requires_grad=True)
optimizer = torch.optim.SGD([proj], lr=0.1)
samples = {i: torch.randn(1, 6) for i in range(3)}

cache = {}
with torch.inference_mode():
    for key, x in samples.items():
        cache[key] = encoder(x)

for key, target in [(0, torch.randn(1, 4)), (1, torch.randn(1, 4))]:
    emb = cache[key]
    try:
        out = emb @ proj  # expect: GG106
        loss = (out - target).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        raise AssertionError("expected an error")
    except RuntimeError as error:
        assert "Inference tensors cannot be saved for backward" in str(error)
    out = emb.clone() @ proj
    (out - target).pow(2).mean().backward()
