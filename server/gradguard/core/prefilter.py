"""The cheap test that lets a file skip analysis: it never mentions torch.

Kept apart from the engine so a front end can apply it before importing the engine (the
CLI does, to keep `gradguard check` on files without torch fast to start).
"""

from __future__ import annotations


def mentions_torch(text: str) -> bool:
    """Cheap pre-filter: a file that never says `torch` cannot hold an autograd mistake
    (spelled as the parser reads it: `import torch` in fullwidth letters imports torch)."""
    if "torch" in text:
        return True
    if text.isascii():
        return False
    import unicodedata

    return "torch" in unicodedata.normalize("NFKC", text)
