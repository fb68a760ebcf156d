#!/usr/bin/env bash
# ShellCheck from Debian: actionlint runs it on every `run:` block of the GitHub workflows, and
# tests/packaging/test_workflows.py runs it on the packaging scripts. Idempotent: a second run
# only asks dpkg.
set -euo pipefail
if dpkg-query -W -f='${Status}' shellcheck 2>/dev/null | grep -q 'install ok installed'; then
  exit 0
fi
echo "20-shellcheck: apt-get install shellcheck"
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends shellcheck >/dev/null
