#!/usr/bin/env bash
# Emacs with eglot for the editor-snippet test (tests/editors/test_emacs.py): Debian's
# packages, installed once. Debian 12 ships Emacs 28, where eglot is not built in yet (it is
# from Emacs 29), so it comes from Debian's elpa-eglot package.
set -euo pipefail
if command -v emacs >/dev/null 2>&1 \
  && emacs --batch --eval "(require 'eglot)" >/dev/null 2>&1; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends emacs-nox elpa-eglot >/dev/null
emacs --batch --eval "(require 'eglot)" >/dev/null
