"""GradGuard never runs or imports user code, never touches the network, never imports torch,
and reads no configuration outside the workspace but `pyproject.toml` files at or above it.

The CLI runs in a workspace full of traps: modules whose import writes a marker file, a package
`__init__.py` with side effects, files named like the modules GradGuard imports lazily
(`json.py`, `tempfile.py`, `difflib.py`, `tomllib.py`, `libcst.py`) and a `sitecustomize.py`.
An audit hook (`sys.addaudithook`, installed by a wrapper before GradGuard starts) records every
socket use, subprocess, `import torch` and file opened.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

BUGGY = textwrap.dedent(
    """\
    import torch
    import helpers
    from package import thing
    from torch import nn
    model = nn.Linear(3, 1)
    with torch.no_grad():
        loss = model(torch.randn(2, 3)).sum()
    loss.backward()
    """
)
# Module names GradGuard (or the libraries it uses) imports after start-up.
SHADOWED = ["json", "tempfile", "difflib", "tomllib", "libcst", "fnmatch", "shutil", "random"]


def _trap(marker_dir: Path, name: str) -> str:
    return f"open({str(marker_dir / name)!r}, 'w').write('executed')\n"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A project whose every module, if executed, leaves a marker in `markers/`."""
    markers = tmp_path / "markers"
    markers.mkdir()
    root = tmp_path / "project"
    (root / "package").mkdir(parents=True)
    (root / "train.py").write_text(BUGGY, encoding="utf-8")
    (root / "helpers.py").write_text(_trap(markers, "helpers") + "import torch\n", "utf-8")
    (root / "package" / "__init__.py").write_text(_trap(markers, "package"), "utf-8")
    (root / "package" / "thing.py").write_text(_trap(markers, "thing") + "# torch\n", "utf-8")
    (root / "conftest.py").write_text(_trap(markers, "conftest"), "utf-8")
    (root / "setup.py").write_text(_trap(markers, "setup") + "import torch\n", "utf-8")
    (root / "sitecustomize.py").write_text(_trap(markers, "sitecustomize"), "utf-8")
    (root / "torch.py").write_text(_trap(markers, "torch"), "utf-8")
    for name in SHADOWED:
        (root / f"{name}.py").write_text(_trap(markers, name), "utf-8")
    (root / "pyproject.toml").write_text("[tool.gradguard]\nselect = ['GG1']\n", "utf-8")
    return root


def _markers(workspace: Path) -> list[str]:
    return sorted(p.name for p in (workspace.parent / "markers").iterdir())


# Installed by `python -c` before GradGuard is imported; writes what it saw as JSON lines.
AUDIT_WRAPPER = r"""
import sys
del sys.path[0]  # `python -c` puts the workspace first on sys.path; the wrapper is not under test
import json, os
log = open(os.environ["GG_AUDIT_LOG"], "w")
FORBIDDEN = {"socket.connect", "socket.getaddrinfo", "socket.gethostbyname", "socket.bind",
             "socket.sendto", "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn",
             "os.spawn", "os.fork", "urllib.Request", "http.client.connect", "ctypes.dlopen"}
def hook(event, args):
    if event in FORBIDDEN:
        log.write(json.dumps({"event": event, "args": repr(args)[:200]}) + "\n"); log.flush()
    elif event == "import" and (args[0] == "torch" or args[0].startswith("torch.")):
        log.write(json.dumps({"event": "import torch", "args": args[0]}) + "\n"); log.flush()
    elif event == "open" and isinstance(args[0], (str, bytes)):
        path = os.fsdecode(args[0])
        write = args[1] is not None and any(c in str(args[1]) for c in "wax+")
        entry = {"event": "open", "path": os.path.abspath(path), "write": write}
        log.write(json.dumps(entry) + "\n")
        log.flush()
sys.addaudithook(hook)
import runpy
sys.argv = ["gradguard", *sys.argv[1:]]
runpy.run_module("gradguard", run_name="__main__", alter_sys=True)
"""


def _audited(workspace: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], list[dict]]:
    log = workspace.parent / "audit.jsonl"
    done = subprocess.run(
        [sys.executable, "-c", AUDIT_WRAPPER, *args],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "GG_AUDIT_LOG": str(log), "NO_COLOR": "1"},
    )
    events = [json.loads(line) for line in log.read_text().splitlines()]
    return done, events


def _installation_paths() -> list[str]:
    import gradguard

    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    roots.add(str(Path(gradguard.__file__).resolve().parent))
    return [os.path.realpath(r) for r in roots]


@pytest.mark.parametrize("launcher", ["module", "script"])
def test_the_cli_imports_and_runs_no_workspace_code(workspace: Path, launcher: str) -> None:
    command = (
        [sys.executable, "-m", "gradguard"]
        if launcher == "module"
        else [str(Path(sys.executable).with_name("gradguard"))]
    )
    for args in (["check", "."], ["check", "--fix", "--unsafe-fixes", "."], ["check", "-"]):
        done = subprocess.run(
            [*command, *args, "--output-format", "json"],
            cwd=workspace,
            input=BUGGY,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert _markers(workspace) == [], (args, done.stderr)
        assert done.returncode in (0, 1), done.stderr


def test_the_cli_uses_no_network_no_subprocess_and_never_imports_torch(workspace: Path) -> None:
    done, events = _audited(workspace, "check", "--fix", "--unsafe-fixes", ".")
    assert done.returncode in (0, 1), done.stderr
    assert "Found" in done.stdout
    # The one subprocess: `git check-ignore`, to honour .gitignore (see the fsmonitor test).
    forbidden = [
        e
        for e in events
        if e["event"] != "open"
        and not (e["event"] == "subprocess.Popen" and "'check-ignore'" in e["args"])
    ]
    assert forbidden == []
    assert _markers(workspace) == []


def test_the_cli_reads_only_the_workspace_its_pyproject_files_and_its_installation(
    workspace: Path,
) -> None:
    done, events = _audited(workspace, "check", "--no-cache", ".")
    assert done.returncode == 1, done.stderr
    allowed_roots = [os.path.realpath(workspace), *_installation_paths()]
    ancestors = {os.path.join(str(p), "pyproject.toml") for p in workspace.parents}
    outside = sorted(
        {
            e["path"]
            for e in events
            if e["event"] == "open"
            and not any(os.path.realpath(e["path"]).startswith(r + os.sep) for r in allowed_roots)
            and e["path"] not in ancestors
            and not e["path"].startswith(("/dev/", "/proc/self/"))
        }
    )
    assert outside == []
    written = [e["path"] for e in events if e["event"] == "open" and e["write"]]
    assert written == []  # a plain check without its cache writes nothing at all


def test_with_its_cache_the_cli_writes_only_into_the_cache_directory(
    workspace: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    cache = os.path.realpath(tmp_path_factory.mktemp("audited-cache"))
    done, events = _audited(workspace, "check", "--cache-dir", cache, ".")
    assert done.returncode == 1, done.stderr
    written = {e["path"] for e in events if e["event"] == "open" and e["write"]}
    assert written, "the cache stores the file's result"
    assert all(os.path.realpath(path).startswith(cache + os.sep) for path in written), written


def test_a_hostile_git_config_in_the_workspace_runs_nothing(workspace: Path) -> None:
    # A cloned repository can carry a .git/config whose core.fsmonitor is any command; git runs
    # it when it reads the index, and GradGuard asks git which files are ignored.
    marker = workspace.parent / "markers" / "fsmonitor"
    subprocess.run(["git", "init", "-q", "."], cwd=workspace, check=True)
    subprocess.run(
        ["git", "config", "core.fsmonitor", f"touch {marker}; false"], cwd=workspace, check=True
    )
    (workspace / ".gitignore").write_text("ignored.py\n", encoding="utf-8")
    (workspace / "ignored.py").write_text(BUGGY, encoding="utf-8")
    done = subprocess.run(
        [str(Path(sys.executable).with_name("gradguard")), "check", "--output-format", "json", "."],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert "ignored.py" not in done.stdout  # .gitignore is still honoured
    assert _markers(workspace) == []
