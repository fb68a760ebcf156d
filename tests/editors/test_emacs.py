"""The README's eglot snippet in a real Emacs: loaded as written, `M-x eglot` in a Python
buffer starts `gradguard lsp`, and flymake shows GG201 on the line of the carried state.

Emacs and eglot come from Debian (`scripts/setup.d/35-emacs.sh`; Debian 12 has Emacs 28, where
eglot is the `elpa-eglot` package rather than built in). The test fails, not skips, without them.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from readme_snippets import gradguard_on_path, snippet
from sample_programs import HIDDEN_STATE

# Loads the snippet, opens the file, starts eglot as `M-x eglot` would, waits for flymake.
PROBE = """
(require 'eglot)
(require 'json)
(load-file "snippet.el")
(find-file "train.py")
(python-mode)
(apply #'eglot (eglot--guess-contact))
(let ((deadline (+ (float-time) 30)) diags)
  (while (and (null diags) (< (float-time) deadline))
    (accept-process-output nil 0.2)
    (flymake-start)
    (setq diags (flymake-diagnostics)))
  (let ((found (mapcar (lambda (d)
                         (list (cons 'text (flymake-diagnostic-text d))
                               (cons 'line (line-number-at-pos (flymake-diagnostic-beg d)))))
                       diags)))
    (with-temp-file (getenv "GG_RESULT")
      (insert (json-encode found)))))
(kill-emacs 0)
"""


def test_emacs_eglot_snippet_shows_gg201(tmp_path: Path) -> None:
    emacs = shutil.which("emacs")
    assert emacs, "Emacs is missing: run scripts/setup.d/35-emacs.sh"
    (tmp_path / "snippet.el").write_text(snippet("emacs-eglot"), encoding="utf-8")
    (tmp_path / "probe.el").write_text(PROBE, encoding="utf-8")
    (tmp_path / "train.py").write_text(HIDDEN_STATE, encoding="utf-8")
    report = tmp_path / "result.json"
    env = {
        "PATH": f"{gradguard_on_path(tmp_path / 'bin')}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "GG_RESULT": str(report),
    }
    completed = subprocess.run(
        ["timeout", "60", emacs, "--batch", "-l", "probe.el"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=90, check=False,
    )  # fmt: skip
    assert report.exists(), completed.stderr
    diagnostics = json.loads(report.read_text(encoding="utf-8"))
    assert completed.returncode == 0, completed.stderr
    [hidden] = [d for d in diagnostics if "GG201" in d["text"]]
    assert hidden["line"] == HIDDEN_STATE.splitlines().index("    h = h_next") + 1
    assert "gradguard" in hidden["text"]
