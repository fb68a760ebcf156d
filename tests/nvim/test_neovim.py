"""A real third-party client: headless Neovim's built-in LSP client applies GradGuard's fixes.

Neovim comes from Debian (`scripts/setup.d/30-neovim.sh`); the test fails, not skips, when
it is missing. `test.lua` opens the file, waits for each diagnostic, applies its quick fix
through `vim.lsp.util.apply_workspace_edit` and writes the file; this test checks the text.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from sample_programs import HIDDEN_STATE

from gradguard.core.engine import check_source
from gradguard.core.rule import rule_by_code

HERE = Path(__file__).parent
SERVER = [sys.executable, "-m", "gradguard", "lsp"]


def run_neovim(tmp_path: Path, text: str, codes: list[str]) -> tuple[dict, str]:  # type: ignore[type-arg]
    """Open `text` in headless Neovim, fix `codes` in order; return the report and the file."""
    nvim = shutil.which("nvim")
    assert nvim, "Neovim is missing: run scripts/setup.d/30-neovim.sh"
    source = tmp_path / "train.py"
    source.write_text(text, encoding="utf-8")
    report = tmp_path / "result.json"
    env = {
        "GG_SERVER": json.dumps(SERVER),
        "GG_CODES": ",".join(codes),
        "GG_RESULT": str(report),
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    completed = subprocess.run(
        ["timeout", "60", nvim, "--headless", "-n", "-i", "NONE", "-u", str(HERE / "init.lua"),
         "-c", f"luafile {HERE / 'test.lua'}", source.name],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=90, check=False,
    )  # fmt: skip
    assert report.exists(), f"Neovim wrote no report:\n{completed.stdout}\n{completed.stderr}"
    result = json.loads(report.read_text(encoding="utf-8"))
    assert result.get("error") is None, f"{result['error']}\n{completed.stderr}"
    assert completed.returncode == 0, completed.stderr
    return result, source.read_text(encoding="utf-8")


def test_neovim_fixes_the_hidden_state(tmp_path: Path) -> None:
    result, fixed = run_neovim(tmp_path, HIDDEN_STATE, ["GG201"])
    [observed] = result["observed"]
    assert (observed["code"], observed["line"], observed["character"]) == ("GG201", 13, 4)
    assert observed["source"] == "gradguard"
    assert result["applied"] == ["GradGuard (GG201): Detach the hidden state"]
    assert fixed == HIDDEN_STATE.replace("    h = h_next\n", "    h = h_next.detach()\n")
    assert result["final"] == []


@pytest.mark.parametrize("code", ["GG101", "GG102", "GG201"])
def test_neovim_applies_each_rules_first_fix(tmp_path: Path, code: str) -> None:
    rule = rule_by_code(code)
    assert rule is not None
    example = next(i for i in rule.invalid if i.fixed is not None and not i.unsafe_fix)
    [expected] = [f for f in check_source(example.code).findings if f.code == code]
    result, fixed = run_neovim(tmp_path, example.code, [code])
    [observed] = result["observed"]
    # The client sees the diagnostic exactly where the engine puts the root cause.
    assert (observed["line"], observed["character"]) == (
        expected.range.start.line,
        expected.range.start.character,
    )
    assert fixed == example.fixed
    assert code not in result["final"]


def test_neovim_utf16_columns_after_cjk_and_emoji(tmp_path: Path) -> None:
    prefix = '    note = "梯度🙂"; '
    text = HIDDEN_STATE.replace("    h = h_next\n", f"{prefix}h = h_next\n")
    result, fixed = run_neovim(tmp_path, text, ["GG201"])
    assert result["offset_encoding"] == "utf-16"
    [observed] = result["observed"]
    assert observed["character"] == len(prefix.encode("utf-16-le")) // 2
    assert fixed.splitlines()[13] == f"{prefix}h = h_next.detach()"
