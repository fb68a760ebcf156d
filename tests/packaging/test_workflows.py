"""The GitHub Actions workflows: actionlint finds nothing, and the release does what it says.

actionlint comes from the `[test]` extra (a wheel that carries the binary), so it is the one
installed beside this interpreter; ShellCheck (scripts/setup.d/20-shellcheck.sh) checks the shell
in every `run:` block through it, and the packaging scripts directly.
"""

from __future__ import annotations

import shutil
import subprocess
import sysconfig
from pathlib import Path
from typing import Any

from vsix_cache import targets

try:
    import yaml
except ImportError:  # libcst pulls in pyyaml-ft instead on CPython 3.13
    import yaml_ft as yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
ACTIONLINT = Path(sysconfig.get_path("scripts")) / "actionlint"
SHELLCHECK = shutil.which("shellcheck")
SHELL_SCRIPTS = [
    ROOT / "scripts" / "package-vsix.sh",
    *sorted((ROOT / "scripts" / "setup.d").glob("*.sh")),
]


def _actionlint(*paths: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ACTIONLINT), "-no-color", f"-shellcheck={SHELLCHECK}", *map(str, paths)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_actionlint_accepts_every_workflow() -> None:
    """No syntax, expression, permission, outdated-action or ShellCheck finding in any workflow."""
    assert SHELLCHECK, "shellcheck is missing: run scripts/setup.d/20-shellcheck.sh"
    assert {p.name for p in WORKFLOWS} >= {"release.yml", "ci.yml"}
    proc = _actionlint(*WORKFLOWS)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_actionlint_reports_a_broken_workflow(tmp_path: Path) -> None:
    """The linter really checks: an unknown job, a bad expression, unquoted shell are found."""
    broken = tmp_path / ".github" / "workflows" / "broken.yml"
    broken.parent.mkdir(parents=True)
    broken.write_text(
        "on: push\n"
        "jobs:\n"
        "  a:\n"
        "    needs: nowhere\n"
        "    runs-on: ubuntu-latest\n"
        "    steps:\n"
        "      - run: echo ${{ github.no_such_thing }}\n"
        "      - run: if [ $answer = yes ]; then echo yes; fi\n"
    )
    proc = _actionlint(broken)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    for finding in ("nowhere", "no_such_thing", "SC2086"):
        assert finding in proc.stdout, proc.stdout


def test_shellcheck_accepts_the_packaging_scripts() -> None:
    """The packaging and setup scripts: quoting, unset variables, portability."""
    assert SHELLCHECK, "shellcheck is missing: run scripts/setup.d/20-shellcheck.sh"
    for script in SHELL_SCRIPTS:
        # From the script's folder: `# shellcheck source=` paths are relative to it.
        proc = subprocess.run(
            [SHELLCHECK, "--external-sources", script.name],
            cwd=script.parent,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr


def _release() -> dict[Any, Any]:
    loaded = yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text())
    assert isinstance(loaded, dict)
    return loaded


def test_release_runs_on_version_tags_only() -> None:
    """YAML reads the bare key `on` as True."""
    release = _release()
    assert release[True] == {"push": {"tags": ["v*"]}}


def test_release_packages_every_target_of_the_packaging_script() -> None:
    """The VS Code job matrix is exactly what `package-vsix.sh --list-targets` builds."""
    jobs = _release()["jobs"]
    assert jobs["vsix"]["strategy"]["matrix"]["target"] == targets()
    assert "test_vsix_platforms.py" in str(jobs["vsix-check"]["steps"])


def test_release_publishes_pypi_by_trusted_publishing_before_the_extension() -> None:
    """PyPI through an OIDC token (no stored password); the extension only after PyPI."""
    jobs = _release()["jobs"]
    pypi = jobs["pypi"]
    assert pypi["permissions"] == {"id-token": "write"}
    assert any(
        str(s.get("uses", "")).startswith("pypa/gh-action-pypi-publish@") for s in pypi["steps"]
    )
    assert "password" not in str(pypi)
    vscode = jobs["vscode"]
    assert set(vscode["needs"]) == {"pypi", "vsix-check"}
    assert vscode["strategy"]["matrix"]["registry"] == ["marketplace", "open-vsx"]
    runs = " ".join(str(s.get("run", "")) for s in vscode["steps"])
    assert "vsce publish" in runs and "ovsx" in runs
