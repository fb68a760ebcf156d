"""The README's Neovim snippets in a real headless Neovim (Debian's, 0.7): with `gradguard`
on PATH the 0.7-0.10 snippet attaches and GG201 arrives; without it, opening a Python file
raises no Lua error. Neovim 0.11's `vim.lsp.config` is not in Debian 12, so the 0.11+ snippet
runs against recording stand-ins for `vim.lsp.config` / `vim.lsp.enable`: it must configure
`gradguard lsp` when the command exists and do nothing when it does not."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from readme_snippets import gradguard_on_path, snippet
from test_neovim import HIDDEN_STATE

# Runs after the snippet (the init file) and the file were loaded; writes what happened.
PROBE = """
local result = { codes = {}, clients = {} }
vim.wait(%(wait)d, function() return #vim.diagnostic.get(0) > 0 end, 50)
for _, d in ipairs(vim.diagnostic.get(0)) do table.insert(result.codes, d.code) end
for _, c in pairs(vim.lsp.get_active_clients()) do table.insert(result.clients, c.name) end
result.errmsg = vim.v.errmsg
result.messages = vim.fn.execute("messages")
result.recorded = _G.recorded
local f = io.open(os.getenv("GG_RESULT"), "w")
f:write(vim.fn.json_encode(result))
f:close()
vim.cmd("qa!")
"""

# Neovim 0.11's API, recorded instead of run (Debian 12 has Neovim 0.7).
STAND_INS = """
_G.recorded = {}
vim.lsp.config = function(name, config)
  table.insert(_G.recorded, { call = "config", name = name, cmd = config.cmd })
end
vim.lsp.enable = function(name) table.insert(_G.recorded, { call = "enable", name = name }) end
"""


def run_snippet(tmp_path: Path, init: str, *, with_gradguard: bool, wait_ms: int) -> dict:  # type: ignore[type-arg]
    """Start Neovim with `init` as its configuration, open a Python file, run the probe."""
    nvim = shutil.which("nvim")
    assert nvim, "Neovim is missing: run scripts/setup.d/30-neovim.sh"
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "init.lua").write_text(init, encoding="utf-8")
    (tmp_path / "probe.lua").write_text(PROBE % {"wait": wait_ms}, encoding="utf-8")
    (tmp_path / "train.py").write_text(HIDDEN_STATE, encoding="utf-8")
    path = "/usr/bin:/bin"
    if with_gradguard:
        path = f"{gradguard_on_path(tmp_path / 'bin')}:{path}"
    report = tmp_path / "result.json"
    env = {
        "PATH": path,
        "GG_RESULT": str(report),
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    completed = subprocess.run(
        ["timeout", "60", nvim, "--headless", "-n", "-i", "NONE", "-u", "init.lua",
         "-c", "luafile probe.lua", "train.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=90, check=False,
    )  # fmt: skip
    assert report.exists(), f"Neovim wrote no report:\n{completed.stdout}\n{completed.stderr}"
    result: dict = json.loads(report.read_text(encoding="utf-8"))  # type: ignore[type-arg]
    result["stderr"] = completed.stderr
    return result


def _no_error(result: dict) -> None:  # type: ignore[type-arg]
    shown = f"{result['stderr']}\n{result['messages']}"
    assert result["errmsg"] == "", result["errmsg"]
    assert "Error" not in shown and "E5108" not in shown, shown


def test_neovim_0_7_snippet_reports_gg201(tmp_path: Path) -> None:
    result = run_snippet(tmp_path, snippet("neovim-0.7"), with_gradguard=True, wait_ms=20000)
    assert result["clients"] == ["gradguard"]
    assert "GG201" in result["codes"], result
    _no_error(result)


def test_neovim_0_7_snippet_without_gradguard_raises_no_error(tmp_path: Path) -> None:
    result = run_snippet(tmp_path, snippet("neovim-0.7"), with_gradguard=False, wait_ms=0)
    assert result["clients"] == []
    _no_error(result)


def test_neovim_0_11_snippet_configures_gradguard_only_when_installed(tmp_path: Path) -> None:
    init = STAND_INS + snippet("neovim-0.11")
    installed = run_snippet(tmp_path / "on", init, with_gradguard=True, wait_ms=0)
    assert installed["recorded"] == [
        {"call": "config", "name": "gradguard", "cmd": ["gradguard", "lsp"]},
        {"call": "enable", "name": "gradguard"},
    ]
    _no_error(installed)
    missing = run_snippet(tmp_path / "off", init, with_gradguard=False, wait_ms=0)
    assert missing.get("recorded") in ([], {}, None), missing
    _no_error(missing)
