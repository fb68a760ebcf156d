"""The README's snippets for editors that do not install here parse (TOML with tomllib, JSON
with json) and say what matters: Helix keeps its default Python servers beside GradGuard;
Sublime and Zed start `gradguard lsp` for Python."""

from __future__ import annotations

import json
import sys

from readme_snippets import snippet

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 only
    import tomli as tomllib

# Helix 25.07's default `language-servers` for Python (its languages.toml).
HELIX_PYTHON_DEFAULTS = ["ty", "ruff", "jedi", "pylsp"]


def test_helix_adds_gradguard_beside_the_default_python_servers() -> None:
    config = tomllib.loads(snippet("helix"))
    server = config["language-server"]["gradguard"]
    assert [server["command"], *server["args"]] == ["gradguard", "lsp"]
    [python] = [lang for lang in config["language"] if lang["name"] == "python"]
    servers = python["language-servers"]
    assert servers[: len(HELIX_PYTHON_DEFAULTS)] == HELIX_PYTHON_DEFAULTS, servers
    assert servers.count("gradguard") == 1


def test_sublime_runs_gradguard_for_python() -> None:
    client = json.loads(snippet("sublime"))["clients"]["gradguard"]
    assert client["enabled"] is True
    assert client["command"] == ["gradguard", "lsp"]
    assert client["selector"] == "source.python"
    assert isinstance(client["settings"]["gradguard"], dict)


def test_zed_keeps_the_default_servers() -> None:
    config = json.loads(snippet("zed"))
    servers = config["languages"]["Python"]["language_servers"]
    assert servers[0] == "gradguard" and "..." in servers, servers
    binary = config["lsp"]["gradguard"]["binary"]
    assert [binary["path"], *binary["arguments"]] == ["gradguard", "lsp"]
