"""How a finding's message reads: one short summary sentence first, the details after it.

Editors show the start of a message and cut the rest (VS Code's Problems panel, Neovim's
virtual text, Emacs's diagnostics list). So the first sentence stands on its own: it names
the variable (in backticks) and the runtime error or misbehaviour, within `SUMMARY_LIMIT`
characters where the names allow. The details follow: where (line references), why, and
how to fix it. docs/contributing.md ("Messages") describes the style.
"""

from __future__ import annotations

from dataclasses import dataclass

SUMMARY_LIMIT = 100
"""The longest first sentence a message should have, measured with its real names."""

_SENTENCE_END = ". "


@dataclass(frozen=True)
class TorchError:
    """An error text as torch 2.13.0 words it, and the part of it a summary quotes.

    `short` is a piece of `text`, word for word, that is what users search for; it is empty
    when the whole text is short enough to quote in a summary.
    """

    text: str
    short: str = ""

    def __post_init__(self) -> None:
        if self.short and self.short not in self.text:
            raise ValueError(f"{self.short!r} is not part of {self.text!r}")

    @property
    def quoted(self) -> str:
        """The text a summary quotes, in double quotes."""
        return f'"{self.short or self.text}"'

    @property
    def in_full(self) -> str:
        """A detail sentence with the whole text, when the summary quoted only part of it."""
        return f'Full error: "{self.text}"' if self.short else ""


NO_GRAD_FN = TorchError(
    "element 0 of tensors does not require grad and does not have a grad_fn",
    "element 0 of tensors does not require grad",
)
SECOND_BACKWARD = TorchError("Trying to backward through the graph a second time")
MODIFIED_INPLACE = TorchError(
    "one of the variables needed for gradient computation has been modified by an inplace "
    "operation",
    "modified by an inplace operation",
)


def compose(summary: str, *details: str) -> str:
    """One message: the summary sentence, then each non-empty detail as a sentence of its own.

    Each part gets a closing full stop unless it already ends with one, so the summary ends
    at the first ". " (see `first_sentence`) as long as it contains none itself.
    """
    return " ".join(_sentence(part) for part in (summary, *details) if part.strip())


def first_sentence(message: str) -> str:
    """The summary of a message: everything up to its first ". ", or all of it."""
    end = message.find(_SENTENCE_END)
    return message if end < 0 else message[: end + 1]


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "?", "!")) else text + "."


def backward_verb(via: str) -> str:
    """How a summary names a backward call: `backward()`, or `autograd.grad()` for
    `torch.autograd.grad` (`via` as in `BackwardCall.via`)."""
    return "autograd.grad()" if via.endswith(".grad") else "backward()"


# `gradguard.analysis.model.LIGHTNING_BACKWARD` (core imports nothing from analysis; a test
# keeps the two equal): the backward Lightning's Trainer runs on `training_step`'s loss.
LIGHTNING_BACKWARD = "lightning"


def describe_backward(name: str, via: str) -> str:
    """How a message names the backward call on `name` (`via` as in `BackwardCall.via`):
    `loss.backward()`, `torch.autograd.grad(loss)`, `accelerator.backward(loss)`, or
    Lightning's backward of the loss `training_step` returns."""
    if via == "backward":
        return f"`{name}.backward()`"
    if via == LIGHTNING_BACKWARD:
        return f"Lightning's backward of the returned `{name}`"
    return f"`{via}({name})`"


def no_graph_summary(name: str, via: str) -> str:
    """The summary of every rule whose backward call finds a value without history."""
    return f"`{name}` has no graph: {backward_verb(via)} raises {NO_GRAD_FN.quoted}"


def capitalized(text: str) -> str:
    """`text` with its first letter upper-case, for a sentence that may start with prose
    ("the model") or with code in backticks (left as it is)."""
    return text[:1].upper() + text[1:]
