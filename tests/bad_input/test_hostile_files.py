"""Files and file systems an attacker (or an unlucky checkout) can put in front of the CLI.

Every test runs the real command line (`python -m gradguard check`) in a subprocess with a hang
timeout: FIFOs, links to devices, symlink loops, unreadable folders, file names that are not
UTF-8, a closed or full stdout, hard links and foreign owners under `--fix`, a file edited
while `--fix` runs, a planted `git`. The promise under test: no hang, no traceback, a clear
message naming the path, nothing written that should not be.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

HEADER = "import torch\nfrom torch import nn\nmodel = nn.Linear(3, 1)\n"
BUGGY = (
    HEADER + "with torch.no_grad():\n    loss = model(torch.randn(2, 3)).sum()\nloss.backward()\n"
)
HANG_TIMEOUT = 60  # a hang detector, not a timing assertion
NOBODY = 65534  # a foreign owner for --fix to keep


def gradguard(
    *args: str | Path,
    cwd: Path,
    env: dict[str, str] | None = None,
    unprivileged: bool = False,
    **kwargs: object,
) -> subprocess.CompletedProcess[bytes]:
    """Run `python -m gradguard check ARGS` in `cwd`; output is kept as bytes.

    `unprivileged` makes file permissions apply even when the tests run as root: the
    capabilities that let root ignore them are dropped (util-linux `setpriv`).
    """
    command = [sys.executable, "-m", "gradguard", "check", *map(str, args)]
    if unprivileged and os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        assert setpriv is not None, "setpriv (util-linux) is needed to drop root's file access"
        caps = "-dac_override,-dac_read_search,-fowner"
        command = [setpriv, f"--inh-caps={caps}", f"--bounding-set={caps}", *command]
    options: dict[str, object] = {"capture_output": True, **kwargs}
    return subprocess.run(  # type: ignore[call-overload, no-any-return]
        command,
        cwd=cwd,
        timeout=HANG_TIMEOUT,
        env={**os.environ, "NO_COLOR": "1", **(env or {})},
        check=False,
        **options,
    )


def no_traceback(done: subprocess.CompletedProcess[bytes]) -> str:
    stderr = done.stderr.decode("utf-8")
    assert "Traceback" not in stderr, stderr
    return stderr


# -- files that are not regular files --------------------------------------------------------


def test_a_fifo_in_a_checked_directory_is_skipped_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.py")
    (tmp_path / "buggy.py").write_text(BUGGY)
    done = gradguard(".", "--output-format", "json", cwd=tmp_path)
    stderr = no_traceback(done)
    assert done.returncode == 1, stderr
    assert "pipe.py: skipped: a named pipe (FIFO), not a regular file" in stderr
    assert [f["code"] for f in json.loads(done.stdout)] == ["GG101"]


def test_a_fifo_named_on_the_command_line_is_an_error_not_a_hang(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.py")
    done = gradguard("pipe.py", cwd=tmp_path)
    stderr = no_traceback(done)
    assert done.returncode == 2
    assert "pipe.py: error: cannot check: a named pipe (FIFO), not a regular file" in stderr


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_link_to_an_endless_device_is_never_read(tmp_path: Path, device: str) -> None:
    (tmp_path / "endless.py").symlink_to(device)
    (tmp_path / "buggy.py").write_text(BUGGY)
    walked = gradguard(".", cwd=tmp_path)
    assert walked.returncode == 1, no_traceback(walked)
    assert "endless.py: skipped: a device, not a regular file" in no_traceback(walked)
    named = gradguard("endless.py", cwd=tmp_path)
    assert named.returncode == 2
    assert "endless.py: error: cannot check: a device" in no_traceback(named)


def test_symlink_loops_and_dangling_links_do_not_stop_the_run(tmp_path: Path) -> None:
    (tmp_path / "loop.py").symlink_to("loop.py")
    (tmp_path / "a.py").symlink_to("b.py")
    (tmp_path / "b.py").symlink_to("a.py")
    (tmp_path / "dangling.py").symlink_to("gone.py")
    (tmp_path / "buggy.py").write_text(BUGGY)
    done = gradguard(".", "--output-format", "json", cwd=tmp_path)
    stderr = no_traceback(done)
    assert done.returncode == 1, stderr
    assert [f["filename"] for f in json.loads(done.stdout)] == ["buggy.py"]
    for name in ("loop.py", "a.py", "b.py", "dangling.py"):
        assert f"{name}: skipped:" in stderr
    named = gradguard("loop.py", cwd=tmp_path)
    assert named.returncode == 2
    assert "loop.py: error: cannot read:" in no_traceback(named)


def test_a_file_above_the_size_limit_is_skipped_with_a_message(tmp_path: Path) -> None:
    from gradguard.core.limits import MAX_SOURCE_LINES

    (tmp_path / "huge.py").write_text("import torch\n" + "x = 1\n" * MAX_SOURCE_LINES)
    (tmp_path / "buggy.py").write_text(BUGGY)
    done = gradguard(".", cwd=tmp_path)
    stderr = no_traceback(done)
    assert done.returncode == 1, stderr
    assert f"huge.py: skipped: {MAX_SOURCE_LINES + 2:,} lines are more than" in stderr


# -- permissions (root's capabilities dropped: root reads everything) ------------------------


def test_an_unreadable_directory_is_an_error_not_a_pass(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "buggy.py").write_text(BUGGY)
    locked.chmod(0o000)
    (tmp_path / "ok.py").write_text("import torch\n")
    done = gradguard(".", cwd=tmp_path, unprivileged=True)
    stderr = no_traceback(done)
    assert done.returncode == 2, stderr
    assert "locked: error: cannot read the directory: Permission denied" in stderr
    assert b"All checks passed" not in done.stdout


def test_a_file_in_an_unsearchable_directory_is_named(tmp_path: Path) -> None:
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / "buggy.py").write_text(BUGGY)
    hidden.chmod(0o600)  # readable listing, but not searchable
    done = gradguard("hidden/buggy.py", cwd=tmp_path, unprivileged=True)
    stderr = no_traceback(done)
    assert done.returncode == 2
    assert "hidden/buggy.py: error: cannot read: Permission denied" in stderr


# -- names and output streams ----------------------------------------------------------------


NON_UTF8_NAME = b"caf\xe9.py"


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif"])
@pytest.mark.parametrize("io_encoding", ["utf-8", "utf-8:strict", "ascii"])
def test_file_names_that_are_not_utf8_print_valid_text(
    tmp_path: Path, fmt: str, io_encoding: str
) -> None:
    (tmp_path / os.fsdecode(NON_UTF8_NAME)).write_text(BUGGY)
    encoding = {"PYTHONIOENCODING": io_encoding}
    done = gradguard(".", "--output-format", fmt, cwd=tmp_path, env=encoding)
    no_traceback(done)
    assert done.returncode == 1
    text = done.stdout.decode("utf-8")  # raises if the output is not valid UTF-8
    if fmt == "sarif":
        uris = [
            loc["physicalLocation"]["artifactLocation"]["uri"]
            for result in json.loads(text)["runs"][0]["results"]
            for loc in result["locations"]
        ]
        assert uris == ["caf%E9.py"]  # the file's real bytes, percent-encoded
    elif fmt == "json":
        assert [f["filename"] for f in json.loads(text)] == ["caf\\xe9.py"]
    else:
        assert "caf\\xe9.py" in text


def test_a_closed_stdout_is_an_error_message_not_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "buggy.py").write_text(BUGGY)
    done = gradguard(
        "buggy.py",
        cwd=tmp_path,
        capture_output=False,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: os.close(1),  # the child starts with no stdout at all
    )
    assert done.returncode == 2
    assert "error: standard output is closed" in no_traceback(done)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
def test_a_full_stdout_is_an_error_message_not_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "buggy.py").write_text(BUGGY)
    with open("/dev/full", "wb") as full:
        done = gradguard(
            "buggy.py", cwd=tmp_path, capture_output=False, stdout=full, stderr=subprocess.PIPE
        )
    stderr = no_traceback(done)
    assert done.returncode == 2
    assert "error: cannot write the report: No space left on device" in stderr


# -- --fix writes only what it should --------------------------------------------------------


def test_fix_keeps_hard_links_and_the_owner(tmp_path: Path) -> None:
    target = tmp_path / "buggy.py"
    target.write_text(BUGGY)
    (tmp_path / "twin.py").hardlink_to(target)
    if os.geteuid() == 0:
        os.chown(target, NOBODY, NOBODY)
    before = target.stat()
    done = gradguard("buggy.py", "--fix", cwd=tmp_path)
    assert done.returncode == 0, no_traceback(done)
    after = target.stat()
    assert after.st_ino == before.st_ino and after.st_nlink == 2
    assert (after.st_uid, after.st_gid) == (before.st_uid, before.st_gid)
    assert (tmp_path / "twin.py").read_text() == target.read_text() != BUGGY


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file another owner needs root")
def test_fix_as_root_keeps_the_owner_of_a_single_link_file(tmp_path: Path) -> None:
    target = tmp_path / "buggy.py"
    target.write_text(BUGGY)
    os.chown(target, NOBODY, NOBODY)
    done = gradguard("buggy.py", "--fix", cwd=tmp_path)
    assert done.returncode == 0, no_traceback(done)
    assert target.read_text() != BUGGY
    assert (target.stat().st_uid, target.stat().st_gid) == (NOBODY, NOBODY)


def test_a_failed_write_reports_nothing_fixed(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    target = project / "buggy.py"
    target.write_text(BUGGY)
    target.chmod(0o444)
    project.chmod(0o555)  # the temporary file cannot be created, nor the file opened for write
    done = gradguard("buggy.py", "--fix", "--output-format", "json", cwd=project, unprivileged=True)
    stderr = no_traceback(done)
    assert done.returncode == 2
    assert "buggy.py: error: not fixed: cannot write the file: Permission denied" in stderr
    assert [f["code"] for f in json.loads(done.stdout)] == ["GG101"]
    assert target.read_text() == BUGGY
    text = gradguard("buggy.py", "--fix", cwd=project, unprivileged=True)
    assert b"fixed" not in text.stdout.split(b"\n")[-2], text.stdout


def test_fix_never_follows_a_walked_symlink_out_of_the_tree(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "theirs.py").write_text(BUGGY)
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "link.py").symlink_to(outside / "theirs.py")
    (tree / "mine.py").write_text(BUGGY)
    done = gradguard(".", "--fix", cwd=tree)
    stderr = no_traceback(done)
    assert "link.py: not fixed: a symbolic link to a file outside the checked folder" in stderr
    assert (outside / "theirs.py").read_text() == BUGGY
    assert (tree / "mine.py").read_text() != BUGGY
    # Named explicitly, the link is the user's choice and is fixed through.
    named = gradguard("link.py", "--fix", cwd=tree)
    assert named.returncode == 0, no_traceback(named)
    assert (outside / "theirs.py").read_text() != BUGGY


def test_an_edit_saved_during_fix_is_not_overwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The editor saves between GradGuard's read and its write: in process, so the save lands
    # exactly there; the file system and the write are real.
    from gradguard import cli, file_check

    target = tmp_path / "buggy.py"
    target.write_text(BUGGY)
    edited = "import torch\n# saved by the editor while --fix ran\n"
    check_text = file_check._Recorder.check_text

    def save_meanwhile(self: file_check._Recorder, *args: object, **kwargs: object) -> str | None:
        fixed = check_text(self, *args, **kwargs)  # type: ignore[arg-type]
        target.write_text(edited)
        return fixed

    monkeypatch.setattr(file_check._Recorder, "check_text", save_meanwhile)
    out, err = io.StringIO(), io.StringIO()
    code = cli.run_check(cli.CheckOptions(paths=(str(target),), fix=True), out=out, err=err)
    assert code == 2
    assert target.read_text() == edited
    assert "not fixed: cannot write the file: the file changed on disk" in err.getvalue()


def test_a_git_planted_in_the_checked_tree_never_runs(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    marker = tmp_path / "pwned"
    planted = tree / "git"
    planted.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
    planted.chmod(planted.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    (tree / "buggy.py").write_text(BUGGY)
    path = os.environ.get("PATH", "")
    for hostile in (f":{path}", f"{path}:", f".:{path}"):  # empty or relative entries = cwd
        done = gradguard(".", cwd=tree, env={"PATH": hostile})
        assert done.returncode == 1, no_traceback(done)
        assert not marker.exists(), f"a planted git ran with PATH={hostile!r}"


# -- pyproject.toml the TOML parser cannot take ----------------------------------------------


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('tool = "x"\n', "`tool` must be a table"),
        ("a = " + "[" * 500 + "]" * 500 + "\n", "nested too deeply"),
    ],
    ids=["tool-not-a-table", "deep-array"],
)
def test_a_broken_pyproject_stops_the_run_with_exit_2_and_a_message(
    tmp_path: Path, content: str, message: str
) -> None:
    (tmp_path / "pyproject.toml").write_text(content)
    (tmp_path / "buggy.py").write_text(BUGGY)
    done = gradguard("buggy.py", cwd=tmp_path)
    stderr = no_traceback(done)
    assert done.returncode == 2, stderr
    assert "pyproject.toml" in stderr and message in stderr
