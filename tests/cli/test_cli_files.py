"""File discovery (skips, .gitignore with and without git) and byte-faithful reading/writing."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from gradguard.files import (
    GitignoreMatcher,
    NotUtf8Error,
    decode,
    discover,
    git_ignored,
    walk,
    write_atomic,
)

Write = Callable[[Path, str | bytes], Path]


def names(paths: tuple[Path, ...] | list[Path], root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in paths)


@pytest.fixture
def tree(tmp_path: Path, write: Write) -> Path:
    """A project with sources, tool directories and non-Python files."""
    for name in [
        "train.py",
        "pkg/model.py",
        "pkg/sub/deep.py",
        ".hidden/secret.py",
        "pkg/.cache/cached.py",
        ".venv/lib/site.py",
        "venv/lib/site.py",
        "build/lib/built.py",
        "node_modules/x/y.py",
        "pkg/__pycache__/model.py",
        "notes.txt",
        "script.pyw",
        "data/ignored.py",
        "logs/run.py",
        "pkg/generated_pb2.py",
    ]:
        write(tmp_path / name, "x = 1\n")
    return tmp_path


def test_walk_skips_hidden_and_tool_directories(tree: Path) -> None:
    found = names(walk(tree), tree)
    assert found == [
        "data/ignored.py",
        "logs/run.py",
        "pkg/generated_pb2.py",
        "pkg/model.py",
        "pkg/sub/deep.py",
        "train.py",
    ]


def test_gitignore_without_git_uses_the_simple_parser(tree: Path, write: Write) -> None:
    # tmp_path is not inside a git work tree, so the fnmatch fallback decides.
    assert git_ignored(tree, [tree / "train.py"]) is None
    write(tree / ".gitignore", "# generated\ndata/\n*_pb2.py\n/logs\n")
    write(tree / "pkg/.gitignore", "sub/deep.py\n")
    assert names(walk(tree), tree) == ["pkg/model.py", "train.py"]


def test_gitignore_inside_a_git_work_tree_asks_git(
    tree: Path, write: Write, git: Callable[..., None]
) -> None:
    git("init", "-q", cwd=tree)
    write(tree / ".gitignore", "data/\n*_pb2.py\n")
    # Only git knows this one: the simple parser never reads .git/info/exclude.
    write(tree / ".git/info/exclude", "logs/\n")
    assert git_ignored(tree, [tree / "train.py"]) == set()
    assert names(walk(tree), tree) == ["pkg/model.py", "pkg/sub/deep.py", "train.py"]
    # Walking a sub-directory of the work tree is answered by git as well.
    write(tree / "pkg/.gitignore", "deep.py\n")
    assert names(walk(tree / "pkg"), tree) == ["pkg/model.py"]


def test_explicit_files_are_checked_even_if_ignored_or_not_py(tree: Path, write: Write) -> None:
    write(tree / ".gitignore", "data/\n")
    found = discover([str(tree / "data/ignored.py"), str(tree / "notes.txt"), str(tree / "pkg")])
    assert names(found.files, tree) == [
        "data/ignored.py",
        "notes.txt",
        "pkg/generated_pb2.py",
        "pkg/model.py",
        "pkg/sub/deep.py",
    ]
    assert found.missing == ()


def test_discover_deduplicates_and_reports_missing_paths(tree: Path) -> None:
    found = discover([str(tree / "train.py"), str(tree), str(tree / "nope.py")])
    assert names(found.files, tree).count("train.py") == 1
    assert found.missing == (str(tree / "nope.py"),)


@pytest.mark.parametrize(
    ("pattern", "path", "is_ignored"),
    [
        ("*.py", "a/b/c.py", True),
        ("/top.py", "top.py", True),
        ("/top.py", "sub/top.py", False),
        ("sub/*.py", "sub/x.py", True),
        ("sub/*.py", "sub/deeper/x.py", False),
        ("a/**/z.py", "a/z.py", True),
        ("a/**/z.py", "a/b/c/z.py", True),
        ("**/gen", "x/gen/m.py", True),
        ("out/", "out/m.py", True),
        ("m.py/", "m.py", False),  # a directory-only pattern does not match a file
    ],
)
def test_simple_gitignore_patterns(
    tmp_path: Path, write: Write, pattern: str, path: str, is_ignored: bool
) -> None:
    ignore = write(tmp_path / ".gitignore", pattern + "\n")
    matcher = GitignoreMatcher.load([ignore])
    assert matcher.ignores(tmp_path / path, tmp_path) is is_ignored


def test_negation_re_includes_a_file(tmp_path: Path, write: Write) -> None:
    ignore = write(tmp_path / ".gitignore", "*.py\n!keep.py\n")
    matcher = GitignoreMatcher.load([ignore])
    assert matcher.ignores(tmp_path / "drop.py", tmp_path)
    assert not matcher.ignores(tmp_path / "keep.py", tmp_path)


def test_decode_keeps_crlf_and_remembers_the_bom() -> None:
    decoded = decode(b"\xef\xbb\xbfx = 1\r\ny = 2\r\n")
    assert decoded.bom
    assert decoded.text == "x = 1\r\ny = 2\r\n"
    assert decoded.encode(decoded.text) == b"\xef\xbb\xbfx = 1\r\ny = 2\r\n"
    plain = decode(b"x = 1\n")
    assert not plain.bom
    assert plain.encode("z = \u00e9\n") == "z = \u00e9\n".encode()


def test_decode_reports_where_the_first_bad_byte_is() -> None:
    with pytest.raises(NotUtf8Error) as info:
        decode("ok = 1\n# \u00e9\u00e9 then latin-1: ".encode() + b"\xe9\n")
    # 19 characters (21 bytes) precede the bad byte: columns count characters.
    assert (info.value.line, info.value.column) == (2, 20)
    assert "not valid UTF-8" in str(info.value)
    assert "0xe9" in str(info.value)


def test_write_atomic_replaces_content_and_keeps_mode(tmp_path: Path, write: Write) -> None:
    target = write(tmp_path / "run.py", "old\n")
    os.chmod(target, 0o751)
    write_atomic(target, b"new\r\n")
    assert target.read_bytes() == b"new\r\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o751
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.py"]  # no temp file left


def test_write_atomic_through_a_symlink_keeps_the_link(tmp_path: Path, write: Write) -> None:
    real = write(tmp_path / "real.py", "old\n")
    link = tmp_path / "link.py"
    link.symlink_to(real)
    write_atomic(link, b"new\n")
    assert link.is_symlink()
    assert real.read_bytes() == b"new\n"
