#!/usr/bin/env bash
# Neovim for the headless editor test (tests/nvim): Debian's package, installed once.
set -euo pipefail
if command -v nvim >/dev/null 2>&1; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq neovim >/dev/null
command -v nvim >/dev/null
