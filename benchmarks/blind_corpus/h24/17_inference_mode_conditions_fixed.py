"""GG106 - tensors created under torch.inference_mode() fed to a trained layer.

Mistake: the video/sync conditioning features are extracted once in the main
node under torch.inference_mode() and handed to the adapter fine-tuning
routine as-is.  The adapter's first nn.Linear must save its input to compute
the weight gradient, which inference tensors do not allow:
RuntimeError: Inference tensors cannot be saved for backward. ...
Fixed: the worker clones the conditions on entry, giving ordinary tensors.

Modelled on: https://gitea.ts-pc.fr/Ethanfel/ComfyUI-SelVA/src/commit/357b875e5e92083786a78aaeec948598dbe97c70/nodes
"""
import threading

import torch
import torch.nn as nn
import torch.nn.functional as F

SETTINGS = {"clip_dim": 24, "sync_dim": 12, "latent_dim": 16, "frames": 8,
            "steps": 3, "lr": 1e-3}


class FrozenClipEncoder(nn.Module):
    def __init__(self, out_dim):
        super().__init__()
        self.proj = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                                  nn.Flatten(), nn.Linear(8, out_dim))

    def forward(self, frames):
        return self.proj(frames)


class ConditionAdapter(nn.Module):
    """Small trainable adapter mapping conditioning features to generator latents."""

    def __init__(self, clip_dim, sync_dim, latent_dim):
        super().__init__()
        self.clip_in = nn.Linear(clip_dim, latent_dim)
        self.sync_in = nn.Linear(sync_dim, latent_dim)
        self.mix = nn.GRU(latent_dim, latent_dim, batch_first=True)

    def forward(self, clip_f, sync_f):
        h = self.clip_in(clip_f) + self.sync_in(sync_f)
        out, _ = self.mix(h)
        return out


class SelVANode:
    def __init__(self, settings):
        self.s = settings
        self.clip = FrozenClipEncoder(settings["clip_dim"]).eval()
        self.sync = nn.Linear(settings["frames"], settings["sync_dim"]).eval()
        self.result = {}

    def extract_conditions(self, video):
        with torch.inference_mode():
            b, t = video.shape[:2]
            clip_f = self.clip(video.flatten(0, 1)).view(b, t, -1)
            sync_f = self.sync(video.mean(dim=(2, 3, 4)).unsqueeze(1).expand(b, t, t))
        return clip_f, sync_f

    def _worker(self, clip_f, sync_f, target):
        try:
            # inference tensors from the main thread: clone into normal tensors
            clip_f, sync_f = clip_f.clone(), sync_f.clone()
            adapter = ConditionAdapter(self.s["clip_dim"], self.s["sync_dim"], self.s["latent_dim"])
            opt = torch.optim.AdamW(adapter.parameters(), lr=self.s["lr"])
            for step in range(self.s["steps"]):
                pred = adapter(clip_f, sync_f)  # fixed: GG106
                loss = F.mse_loss(pred, target)
                opt.zero_grad()
                loss.backward()
                opt.step()
                self.result.setdefault("loss", []).append(loss.item())
        except Exception as exc:  # surfaced to the caller like a node error
            self.result["error"] = exc

    def run(self, video, target):
        clip_f, sync_f = self.extract_conditions(video)
        worker = threading.Thread(target=self._worker, args=(clip_f, sync_f, target))
        worker.start()
        worker.join()
        if "error" in self.result:
            raise self.result["error"]
        return self.result["loss"]


def main():
    torch.manual_seed(0)
    s = SETTINGS
    video = torch.randn(2, s["frames"], 3, 16, 16)
    target = torch.randn(2, s["frames"], s["latent_dim"])
    node = SelVANode(s)
    losses = node.run(video, target)
    print("losses", [round(v, 4) for v in losses])


if __name__ == "__main__":
    main()
    print("FIXED: ok")
