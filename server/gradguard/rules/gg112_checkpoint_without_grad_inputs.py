"""GG112 `checkpoint-without-grad-inputs`

## What it does
Finds a reentrant `torch.utils.checkpoint.checkpoint(fn, x, ...)` (no `use_reentrant`, or
`use_reentrant=True`) run with gradients on, whose every input certainly does not require
grad (a fresh tensor such as `torch.randn(...)`, a `.detach()`ed tensor, a result computed
under `torch.no_grad()`, the output of a frozen module, a batch of a `DataLoader` over a
`TensorDataset` of such tensors...), while `fn` certainly computes with parameters that
require grad: a module (a `torch.nn` layer, an `nn.Sequential` of them, or a module class of
the file, built here and not frozen by the file) or a function or method of the file that
runs one (`checkpoint(self._forward_impl, x)`). A checkpoint inside `forward` is judged for
each call of the model whose input is known (`model(xb)` in the training loop), and so is one
in a short method or function of the file that `forward` hands its blocks and input to
(`h = self._run_block(block, h)` over `self.blocks`). A loop in `forward` reaches the
checkpoint once per pass: one pass whose inputs all lack grad is enough (the first block fed
a frozen embedding's output); the blocks it runs may be those of an `nn.ModuleList` built
from a local list filled block by block (`stages.append(Block(...))`), or the modules of
different kinds a method lists (`for stage in self.segments()`, each of them trainable). A
layer frozen by the code that hands the model to a helper
(`model.frontend.requires_grad_(False)`, then `train_epoch(model, ...)` runs `model(x)`) is
frozen in the helper's run of `forward` too. A file that freezes some layers still tells
which modules train when each freeze names a fresh torch.nn layer of its own
(`model.embeddings`): the layers of a checkpointed block, built fresh under other
attributes, certainly train.

Left alone on purpose:

* inputs the analysis cannot see (a batch from an unknown loader, the output of an embedding
  hooked by `enable_input_require_grads`): they may require grad;
* a checkpointed segment without trainable parameters (a frozen backbone, an activation):
  nothing is lost there but the memory saving, and torch's warning is harmless;
* a lambda or a function built by another (`create_custom_forward(layer)`, `lambda t:
  m(t)`): what it runs is not known;
* `checkpoint_sequential(...)`: it checkpoints every segment but the last, and which layers
  the earlier segments hold is not known;
* checkpoints under `torch.no_grad()` (inference) and `use_reentrant=False`.

## Why is this bad?
The reentrant checkpoint is an autograd `Function` that runs `fn` under `torch.no_grad()`
and recomputes it during backward. Its output requires grad only if one of its *inputs*
does; the parameters inside `fn` do not count. With no input requiring grad, torch 2.13.0
warns

    UserWarning: None of the inputs have requires_grad=True. Gradients will be None

and the output comes back without history: the checkpointed module's parameters silently get
no gradient (their `.grad` stays None and the optimizer never changes them), while the rest
of the model trains. When nothing else in the loss requires grad, `loss.backward()` raises

    RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn

Without `use_reentrant`, torch 2.13.0 only warns that the argument should be passed, and
uses the reentrant variant.

## Example
```python
features = torch.randn(8, 16)  # or: with torch.no_grad(): features = backbone(x)
hidden = checkpoint(block, features)  # block's weights never get a gradient
loss = head(hidden).pow(2).mean()
```

## Use instead
```python
hidden = checkpoint(block, features, use_reentrant=False)
```

## Fix safety
"Use the non-reentrant checkpoint" passes `use_reentrant=False` (or turns a literal
`use_reentrant=True` into it). It is unsafe: the checkpointed parameters start to train, which
is the point but changes the results of the run, and the non-reentrant variant differs in
ways that can matter for some segments: by default it checks that the recomputation saves
tensors of the same shapes, dtypes and devices as the forward pass, and raises a
`CheckpointError` where the reentrant one did not (a segment whose recomputation differs, a
global flag read in it); it records the autograd graph in the forward pass and stops the
recomputation early. Making the input require grad instead (`x.requires_grad_()`) keeps the
reentrant variant, and is what `enable_input_require_grads` does for Hugging Face models.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from gradguard.analysis.facts import CheckpointInput, Grad, Kind, LossKind, reentrant_keyword
from gradguard.core.findings import Finding, Fix, Related, Safety, Severity
from gradguard.core.messages import NO_GRAD_FN, capitalized, compose
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import add_keyword, expr_text, replace_expr

WARNING = '"None of the inputs have requires_grad=True. Gradients will be None"'


def _certain(uses: Sequence[CheckpointInput]) -> bool:
    """Every input certainly does not require grad, at least one is a tensor, and the
    checkpointed module called directly on them would certainly return history (its own
    parameters require grad)."""
    if any(use.grad_enabled is not True or use.value.grad is not Grad.UNTRACKED for use in uses):
        return False
    if not any(use.value.kind is Kind.TENSOR for use in uses):
        return False
    return all(
        use.direct is not None and (use.direct.has_history or use.direct.holds_history())
        for use in uses
    )


def _passes(call: ast.Call, uses: Sequence[CheckpointInput]) -> list[list[CheckpointInput]]:
    """The inputs of each time one run reached the checkpoint (a loop in `forward` reaches
    it once per pass, `checkpoint(block, h)` over `self.blocks`): a pass starts with the
    checkpoint's first input. Any pass whose inputs all lack grad loses the gradient of the
    module it runs; the later passes of a loop see its output joined with other paths'."""
    first = call.args[1] if len(call.args) > 1 else None
    passes: list[list[CheckpointInput]] = []
    for use in uses:
        if not passes or use.target is first:
            passes.append([])
        passes[-1].append(use)
    return passes


def _after_reported(uses: Sequence[CheckpointInput], reported: set[int]) -> bool:
    """An input comes out of a checkpoint already reported: fixing that one gives this one
    an input with history, so it is the same bug."""
    return any(
        use.value.loss is not None
        and use.value.loss.kind is LossKind.CHECKPOINT
        and id(use.value.loss.node) in reported
        for use in uses
    )


class CheckpointWithoutGradInputs(Rule):
    """Reentrant checkpoint of a trainable module whose inputs do not require grad."""

    code = "GG112"
    name = "checkpoint-without-grad-inputs"
    severity = Severity.ERROR
    summary = (
        "reentrant checkpoint whose inputs do not require grad: the checkpointed parameters "
        "get no gradient"
    )

    valid = (
        # The non-reentrant variant tracks the parameters whatever the inputs.
        """
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint
block, head = nn.Linear(16, 16), nn.Linear(16, 1)
x = torch.randn(8, 16)
hidden = checkpoint(block, x, use_reentrant=False)
head(hidden).pow(2).mean().backward()
assert block.weight.grad is not None
""",
        # The input comes out of a trainable embedding: it requires grad.
        """
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint
embed, block = nn.Embedding(100, 16), nn.Linear(16, 16)
ids = torch.randint(0, 100, (8,))
hidden = checkpoint(block, embed(ids), use_reentrant=True)
hidden.pow(2).mean().backward()
assert block.weight.grad is not None
""",
        # The input is made to require grad first (what enable_input_require_grads does).
        """
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint
block = nn.Linear(16, 16)
x = torch.randn(8, 16).requires_grad_()
hidden = checkpoint(block, x, use_reentrant=True)
hidden.pow(2).mean().backward()
assert block.weight.grad is not None
""",
        # Inference: under no_grad nothing is recorded anyway.
        """
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint
block = nn.Linear(16, 16)
with torch.no_grad():
    out = checkpoint(block, torch.randn(8, 16), use_reentrant=True)
print(out.shape)
""",
        # A frozen backbone checkpointed: nothing in the segment trains; only the head does.
        """
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint
backbone, head = nn.Linear(16, 16), nn.Linear(16, 1)
backbone.requires_grad_(False)
features = checkpoint(backbone, torch.randn(8, 16), use_reentrant=True)
head(features).pow(2).mean().backward()
assert head.weight.grad is not None
""",
        # A parameter-free segment: no gradient to lose.
        """
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint
act, head = nn.GELU(), nn.Linear(16, 1)
hidden = checkpoint(act, torch.randn(8, 16), use_reentrant=True)
head(hidden).pow(2).mean().backward()
""",
    )

    invalid = (
        Invalid(
            """
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint
block, head = nn.Linear(16, 16), nn.Linear(16, 1)
x = torch.randn(8, 16)
hidden = checkpoint(block, x)
head(hidden).pow(2).mean().backward()
print("block.weight.grad:", block.weight.grad)
""",
            fixed="""
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint
block, head = nn.Linear(16, 16), nn.Linear(16, 1)
x = torch.randn(8, 16)
hidden = checkpoint(block, x, use_reentrant=False)
head(hidden).pow(2).mean().backward()
print("block.weight.grad:", block.weight.grad)
""",
            unsafe_fix=True,
        ),
        Invalid(
            """
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint
encoder, block = nn.Linear(16, 16), nn.Linear(16, 16)
with torch.no_grad():
    features = encoder(torch.randn(8, 16))
hidden = checkpoint(block, features, use_reentrant=True)
hidden.pow(2).mean().backward()
""",
            fixed="""
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint
encoder, block = nn.Linear(16, 16), nn.Linear(16, 16)
with torch.no_grad():
    features = encoder(torch.randn(8, 16))
hidden = checkpoint(block, features, use_reentrant=False)
hidden.pow(2).mean().backward()
""",
            unsafe_fix=True,
            error="element 0 of tensors does not require grad and does not have a grad_fn",
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per reentrant checkpoint call whose inputs all lack grad, in the
        function's own analysis or in a run of it for one call (a `forward` whose caller
        passes a tensor without history: `ModuleInterpreter.result_in_context`)."""
        runs: dict[tuple[int, int, int], list[CheckpointInput]] = {}
        for use in ctx.analysis.events.of(CheckpointInput):
            if not use.sequential:
                runs.setdefault((id(use.node), id(use.context), use.run), []).append(use)
        reported: set[int] = set()
        for uses in runs.values():
            call = uses[0].node
            assert isinstance(call, ast.Call)
            if id(call) in reported:
                continue
            reentrant = reentrant_keyword(call)
            if reentrant is False:
                continue
            passes = _passes(call, uses)
            found = next(
                (p for p in passes if _certain(p) and not _after_reported(p, reported)), None
            )
            if found is None:
                continue
            reported.add(id(call))
            yield self._finding(ctx, call, found, reentrant)

    def _finding(
        self, ctx: RuleContext, call: ast.Call, uses: Sequence[CheckpointInput], reentrant: object
    ) -> Finding:
        names = list(dict.fromkeys(expr_text(ctx.source, use.target) for use in uses))
        shown = [f"`{n}`" if len(n) <= 40 else "an input" for n in names]
        module = expr_text(ctx.source, call.args[0])
        module = f"`{module}`" if len(module) <= 40 else "the checkpointed module"
        inputs = shown[0] if len(shown) == 1 else "none of " + ", ".join(shown)
        verb = "does not require grad" if len(shown) == 1 else "requires grad"
        how = "use_reentrant=True" if isinstance(reentrant, ast.keyword) else "no use_reentrant"
        message = compose(
            f"{capitalized(inputs)} {verb}, so the reentrant checkpoint gives {module} no gradient",
            f"This checkpoint is reentrant ({how}): torch warns {WARNING} and its output has no "
            f"history, so the parameters {module} computes with silently get no gradient (a "
            f"backward through this output alone raises {NO_GRAD_FN.quoted}); pass "
            "use_reentrant=False",
        )
        related = [
            Related(
                ctx.node_range(use.value.loss.node), f"no history: {use.value.loss.description}"
            )
            for use in uses
            if use.value.loss is not None and use.value.kind is Kind.TENSOR
        ]
        context = uses[0].context
        if context is not None:
            related.insert(
                0,
                Related(
                    ctx.node_range(context),
                    f"`{expr_text(ctx.source, context)}` runs this code with inputs that do not "
                    "require grad",
                ),
            )
        if isinstance(reentrant, ast.keyword):
            edit = replace_expr(ctx.source, reentrant.value, "False")
        else:
            edit = add_keyword(ctx.source, call, "use_reentrant=False")
        fix = Fix("Use the non-reentrant checkpoint", Safety.UNSAFE, (edit,))
        return self.finding(message, ctx.node_range(call), related[:3], [fix])
