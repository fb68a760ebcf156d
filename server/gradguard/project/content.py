"""The content key of a project file: what a fact from it is valid for.

Light on purpose: the results cache checks stored dependencies with it before deciding
whether anything needs analysing at all.
"""

from __future__ import annotations

from pathlib import Path

from gradguard import __version__


def content_key(text: str) -> str:
    """The key of a file's text under this GradGuard version."""
    import hashlib  # here: a check that reads no other project file never needs it (start-up)

    return hashlib.sha256(f"{__version__}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()


def read_text(path: Path) -> str | None:
    """A project file's text as the index reads it (None when it cannot be read)."""
    try:
        return path.read_bytes().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return None


def current_key(path: str) -> str | None:
    """The key of the file at `path` as it is now on disk (None: unreadable or gone)."""
    text = read_text(Path(path))
    return content_key(text) if text is not None else None
