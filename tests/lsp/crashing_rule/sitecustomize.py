"""Test plug-in loaded via PYTHONPATH: adds a rule that prints to stdout and then crashes."""

from pathlib import Path

import gradguard.rules

gradguard.rules.__path__.append(str(Path(__file__).parent / "extra_rules"))
