"""Hostile files through the real command line (`python -m gradguard check`), and `--fix` safety.

`--fix` must never write a file it could not parse, never truncate one, and write atomically
(a temporary file renamed over the original, permission bits kept).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

from gradguard.core.engine import fix_source

HEADER = "import torch\nfrom torch import nn\nmodel = nn.Linear(3, 1)\n"
NO_GRAD_BUG = "with torch.no_grad():\n    loss = model(torch.randn(2, 3)).sum()\nloss.backward()\n"
BUGGY = HEADER + NO_GRAD_BUG
HANG_TIMEOUT = 120  # a hang detector, not a timing assertion


def gradguard(
    *args: str | Path, cwd: Path, timeout: float = HANG_TIMEOUT
) -> subprocess.CompletedProcess[str]:
    """Run the CLI as a user would, in `cwd`."""
    return subprocess.run(
        [sys.executable, "-m", "gradguard", "check", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "NO_COLOR": "1"},
    )


def test_a_file_that_is_not_utf8_is_named_and_the_others_still_checked(tmp_path: Path) -> None:
    (tmp_path / "latin1.py").write_bytes(b"import torch\n# caf\xe9\nx = 1\n")
    (tmp_path / "buggy.py").write_text(BUGGY, encoding="utf-8")
    done = gradguard(".", "--output-format", "json", cwd=tmp_path)
    assert done.returncode == 2, done
    assert "latin1.py:2:6" in done.stderr and "not valid UTF-8" in done.stderr
    findings = json.loads(done.stdout)
    assert [(f["filename"], f["code"]) for f in findings] == [("buggy.py", "GG101")]


def test_nul_bytes_are_reported_as_a_file_error(tmp_path: Path) -> None:
    (tmp_path / "nul.py").write_bytes(BUGGY.encode().replace(b"model = ", b"model =\x00 "))
    (tmp_path / "buggy.py").write_text(BUGGY, encoding="utf-8")
    done = gradguard(".", "--output-format", "json", cwd=tmp_path)
    assert done.returncode == 2
    assert "nul.py" in done.stderr and "null bytes" in done.stderr
    assert [f["filename"] for f in json.loads(done.stdout)] == ["buggy.py"]


def test_empty_comment_only_and_python2_files(tmp_path: Path) -> None:
    (tmp_path / "empty.py").write_bytes(b"")
    (tmp_path / "comments.py").write_text("# torch\n# nothing else\n", encoding="utf-8")
    (tmp_path / "py2.py").write_text('import torch\nprint "hi"\n', encoding="utf-8")
    done = gradguard(".", cwd=tmp_path)
    assert done.returncode == 2
    assert "py2.py:2:" in done.stderr and "SyntaxError" in done.stderr
    assert "empty.py" not in done.stderr + done.stdout
    assert "comments.py" not in done.stderr + done.stdout


def test_a_100000_line_file_completes(tmp_path: Path) -> None:
    block = (
        "def train_{i}(loader, opt):\n"
        '    """One epoch of the model; 注释 🔥."""\n'
        "    hidden = None\n"
        "    total = 0.0\n"
        "    for step, (x, y) in enumerate(loader):\n"
        "        opt.zero_grad()\n"
        "        out, hidden = rnn(x, hidden)\n"
        "        loss = criterion(out, y)\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        total += loss.detach()\n"
        "        if step % 100 == 0:\n"
        "            print(step, total / (step + 1))\n"
        "    with torch.no_grad():\n"
        "        val = model(x).sum()\n"
        "    val.backward()\n"
        "    return total\n"
        "\n"
        "\n"
    )
    header = HEADER + "criterion = nn.MSELoss()\nrnn = nn.GRU(4, 8)\n"
    blocks = 100_000 // block.count("\n") + 1
    (tmp_path / "big.py").write_text(
        header + "".join(block.format(i=i) for i in range(blocks)), encoding="utf-8"
    )
    done = gradguard("big.py", "--output-format", "json", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    codes = sorted(f["code"] for f in json.loads(done.stdout))
    assert codes == ["GG101"] * blocks + ["GG201"] * blocks


# -- --fix safety --------------------------------------------------------------------------------


def test_fix_never_writes_a_file_it_could_not_parse(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_bytes(BUGGY.encode() + b"def oops(:\n")
    before = broken.stat()
    done = gradguard("--fix", "broken.py", cwd=tmp_path)
    assert done.returncode == 2
    assert broken.read_bytes() == BUGGY.encode() + b"def oops(:\n"
    assert broken.stat().st_mtime_ns == before.st_mtime_ns
    assert broken.stat().st_ino == before.st_ino


def test_fix_writes_the_whole_file_atomically_and_keeps_permissions(tmp_path: Path) -> None:
    # A file larger than any write buffer with a fix near the start: a truncating or
    # partial writer would lose the tail.
    tail = "".join(f"value_{i} = torch.zeros({i % 7 + 1})  # 注释 {i}\r\n" for i in range(2_500))
    original = "\ufeff" + BUGGY.replace("\n", "\r\n") + tail
    target = tmp_path / "train.py"
    target.write_bytes(original.encode("utf-8"))
    target.chmod(0o640)
    inode = target.stat().st_ino
    link = tmp_path / "link.py"
    link.symlink_to(target.name)

    done = gradguard("--fix", "train.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr

    expected = "\ufeff" + fix_source(original.removeprefix("\ufeff")).text
    assert target.read_bytes() == expected.encode("utf-8")
    assert target.read_bytes().endswith(tail.encode("utf-8"))
    assert b"with torch.no_grad()" not in target.read_bytes()
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert target.stat().st_ino != inode  # a new file renamed over the old one
    assert link.is_symlink() and link.resolve() == target.resolve()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.py", "train.py"]  # no temp left


def test_fix_through_a_symlink_keeps_the_link(tmp_path: Path) -> None:
    target = tmp_path / "real.py"
    target.write_text(BUGGY, encoding="utf-8")
    link = tmp_path / "link.py"
    link.symlink_to(target.name)
    done = gradguard("--fix", "link.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert link.is_symlink()
    assert "torch.no_grad" not in target.read_text(encoding="utf-8")


def test_fix_keeps_a_read_only_file_read_only(tmp_path: Path) -> None:
    target = tmp_path / "train.py"
    target.write_text(BUGGY, encoding="utf-8")
    os.chmod(target, 0o444)  # read-only files are still fixed, and stay read-only
    done = gradguard("--fix", "train.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE(target.stat().st_mode) == 0o444
    assert "torch.no_grad" not in target.read_text(encoding="utf-8")
