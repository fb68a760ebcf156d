"""GG106 - GRPO-style trainer reuses completions generated under torch.inference_mode().

The trainer samples completions with a fast "vLLM-like" generate() helper that
runs under torch.inference_mode().  The prompt+completion ids it returns are
inference tensors; when compute_loss() feeds them back through the policy to
get per-token log-probs, the embedding layer has to save its index tensor for
backward and torch refuses:
    RuntimeError: Inference tensors cannot be saved for backward. ...

Modelled on: https://github.com/unslothai/unsloth/issues/2434
"""
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class GRPOConfig:
    vocab_size: int = 32
    hidden: int = 32
    prompt_len: int = 4
    max_completion_length: int = 6
    num_generations: int = 4
    per_device_train_batch_size: int = 2
    learning_rate: float = 5e-3
    beta: float = 0.04
    max_steps: int = 2


class TinyCausalLM(nn.Module):
    def __init__(self, vocab, hidden):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, hidden)
        self.rnn = nn.GRU(hidden, hidden, batch_first=True)
        self.lm_head = nn.Linear(hidden, vocab)

    def forward(self, input_ids):
        h, _ = self.rnn(self.embed_tokens(input_ids))
        return self.lm_head(h)


def reward_len_and_token(completions):
    """Toy reward: fraction of tokens equal to 7."""
    return (completions == 7).float().mean(dim=1)


class FastGenerator:
    """Stand-in for the vLLM engine: sampling with autograd fully disabled."""

    def __init__(self, model):
        self.model = model

    def generate(self, prompt_ids, max_new_tokens):
        with torch.inference_mode():
            ids = prompt_ids
            for _ in range(max_new_tokens):
                logits = self.model(ids)[:, -1]
                nxt = torch.multinomial(F.softmax(logits, -1), 1)
                ids = torch.cat([ids, nxt], dim=1)
        return ids


class GRPOTrainer:
    def __init__(self, model, ref_model, args):
        self.model, self.ref_model, self.args = model, ref_model, args
        self.ref_model.requires_grad_(False)
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
        self.engine = FastGenerator(model)

    def _get_per_token_logps(self, model, input_ids, logits_to_keep):
        logits = model(input_ids)[:, :-1]  # bug: GG106
        logps = F.log_softmax(logits[:, -logits_to_keep:], dim=-1)
        targets = input_ids[:, -logits_to_keep:]
        return torch.gather(logps, 2, targets.unsqueeze(-1)).squeeze(-1)

    def _prepare_inputs(self, prompts):
        prompts = prompts.repeat_interleave(self.args.num_generations, dim=0)
        prompt_completion_ids = self.engine.generate(prompts, self.args.max_completion_length)
        completions = prompt_completion_ids[:, self.args.prompt_len:]
        with torch.no_grad():
            ref_logps = self._get_per_token_logps(self.ref_model, prompt_completion_ids, completions.size(1))
        rewards = reward_len_and_token(completions).view(-1, self.args.num_generations)
        adv = (rewards - rewards.mean(1, keepdim=True)) / (rewards.std(1, keepdim=True) + 1e-4)
        return {"ids": prompt_completion_ids, "ref_logps": ref_logps, "advantages": adv.view(-1),
                "logits_to_keep": completions.size(1)}

    def compute_loss(self, inputs):
        logps = self._get_per_token_logps(self.model, inputs["ids"], inputs["logits_to_keep"])
        ref = inputs["ref_logps"]
        kl = torch.exp(ref - logps) - (ref - logps) - 1
        ratio = torch.exp(logps - logps.detach())
        per_token = -(ratio * inputs["advantages"].unsqueeze(1) - self.args.beta * kl)
        return per_token.mean()

    def train(self, prompt_batches):
        for step, prompts in enumerate(prompt_batches[: self.args.max_steps]):
            inputs = self._prepare_inputs(prompts)
            loss = self.compute_loss(inputs)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            print(f"step {step}: loss={loss.item():.4f}")


def main():
    torch.manual_seed(0)
    args = GRPOConfig()
    model = TinyCausalLM(args.vocab_size, args.hidden)
    ref_model = TinyCausalLM(args.vocab_size, args.hidden)
    ref_model.load_state_dict(model.state_dict())
    batches = [torch.randint(0, args.vocab_size, (args.per_device_train_batch_size, args.prompt_len)) for _ in range(3)]
    GRPOTrainer(model, ref_model, args).train(batches)


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
