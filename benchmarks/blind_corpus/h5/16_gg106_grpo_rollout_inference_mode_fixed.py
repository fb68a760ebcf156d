"""Category GG106 -- an inference tensor used in a computation autograd must save.
Status: fixed -- sampling runs under torch.no_grad(), which produces normal
tensors that autograd may save later.
A tiny GRPO-style policy-gradient loop for a character language model.  Completions
are sampled inside `torch.inference_mode()` for speed, then fed back into the policy
to get per-token log-probs with gradient.  The sampled token ids are inference
tensors; the embedding lookup must save its indices for backward, so the forward
pass raises
RuntimeError: Inference tensors cannot be saved for backward. ...
Modelled on: https://github.com/huggingface/trl/issues/2983
"""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

GRPO = {"vocab": 12, "d_model": 32, "prompt_len": 4, "completion_len": 6, "num_generations": 4,
        "batch": 2, "steps": 3, "lr": 5e-4, "beta_clip": 0.2}


class TinyLM(nn.Module):
    def __init__(self, vocab, d):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.rnn = nn.GRU(d, d, batch_first=True)
        self.lm_head = nn.Linear(d, vocab)

    def forward(self, input_ids):
        h, _ = self.rnn(self.tok(input_ids))
        return self.lm_head(h)


def generate(model, prompts, n_new):
    ids = prompts
    for _ in range(n_new):
        logits = model(ids)[:, -1]
        nxt = torch.multinomial(F.softmax(logits, -1), 1)
        ids = torch.cat([ids, nxt], dim=1)
    return ids


def reward_fn(completions):
    # reward completions that contain many even tokens
    return (completions % 2 == 0).float().mean(1)


def per_token_logps(model, input_ids, logits_to_keep):
    logits = model(input_ids)[:, -logits_to_keep - 1:-1]
    targets = input_ids[:, -logits_to_keep:]
    return torch.gather(F.log_softmax(logits, -1), 2, targets.unsqueeze(-1)).squeeze(-1)


class GRPOTrainer:
    def __init__(self, model, cfg):
        self.model, self.cfg = model, cfg
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"])

    def generate_and_score(self, prompts):
        c = self.cfg
        prompts = prompts.repeat_interleave(c["num_generations"], 0)
        with torch.no_grad():
            ids = generate(self.model, prompts, c["completion_len"])
            rewards = reward_fn(ids[:, c["prompt_len"]:])
            grouped = rewards.view(-1, c["num_generations"])
            adv = (grouped - grouped.mean(1, keepdim=True)) / (grouped.std(1, keepdim=True) + 1e-4)
        return ids, adv.view(-1), rewards

    def training_step(self, prompts):
        ids, advantages, rewards = self.generate_and_score(prompts)
        logps = per_token_logps(self.model, ids, self.cfg["completion_len"])  # fixed: GG106
        ratio = torch.exp(logps - logps.detach())
        loss = -(ratio * advantages.unsqueeze(1)).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item(), rewards.mean().item()


def main():
    torch.manual_seed(0)
    c = GRPO
    trainer = GRPOTrainer(TinyLM(c["vocab"], c["d_model"]), c)
    for step in range(c["steps"]):
        prompts = torch.randint(0, c["vocab"], (c["batch"], c["prompt_len"]))
        loss, reward = trainer.training_step(prompts)
        print(f"step {step}: loss {loss:+.4f} mean reward {reward:.3f}")


if __name__ == "__main__":
    main()
    print("FIXED: ok")
