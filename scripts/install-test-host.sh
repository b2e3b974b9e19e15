#!/usr/bin/env bash
# Installs what the tests need beyond `npm ci`, when it is missing, so that `npm ci && npm test`
# passes on a fresh machine: the Debian packages below (as root, or through sudo when it needs no
# password; otherwise one line saying what to install), then the offline VS Code test host,
# code-server, into .vscode-test/, outside the project's dependencies because it is ~300 MB and
# demands Node 20 exactly. `npm test` runs it first; it does nothing when everything is there.
# See docs/testing.md.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
version=${CODE_SERVER_VERSION:-4.100.3}
dest="$here/.vscode-test/code-server-$version"

#
#   bash scripts/install-test-host.sh          everything the test stages need
#   bash scripts/install-test-host.sh --unit   only what the unit tests need (neovim), no code-server

# libkrb5-dev and pkg-config: a native module of code-server builds against Kerberos; ripgrep:
# code-server's @vscode/ripgrep cannot download rg offline (below); chromium: the browser that
# drives the web workbench; curl: the upload benchmark; openssl: certificates for the TLS tests;
# neovim: another editor's LSP client for the language server's test (test/unit/neovim.test.ts).
packages=(libkrb5-dev pkg-config ripgrep chromium curl openssl neovim)
commands=(rg chromium curl openssl nvim)
unit_only=false
if [ "${1:-}" = "--unit" ]; then
  unit_only=true
  packages=(neovim)
  commands=(nvim)
fi

missing_packages() {
  if command -v dpkg-query >/dev/null; then
    for p in "${packages[@]}"; do
      dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"
    done
  else
    # Not Debian: look for the commands the tests run (the -dev packages have no command).
    for c in "${commands[@]}"; do command -v "$c" >/dev/null || echo "$c"; done
  fi
}

mapfile -t missing < <(missing_packages)
if [ ${#missing[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null; then
    echo "test host: missing ${missing[*]}; install them with your system's package manager" >&2
    exit 1
  fi
  if [ "$(id -u)" -eq 0 ]; then
    sudo=()
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo=(sudo -n)
  else
    echo "test host: missing Debian packages; run: sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
  echo "test host: installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if $unit_only; then
  echo "test host: ${packages[*]} ready for the unit tests"
  exit 0
fi

if [ -x "$dest/node_modules/.bin/code-server" ]; then
  echo "test host: code-server $version already installed in $dest"
  exit 0
fi
# @vscode/ripgrep downloads rg from GitHub at install time, which fails offline; it first looks for
# a cached archive in $TMPDIR, so put Debian's rg there.
tmp=${TMPDIR:-/tmp}
cache="$tmp/vscode-ripgrep-cache-1.15.11"
archive="$cache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz"
if [ ! -f "$archive" ]; then
  mkdir -p "$cache"
  work=$(mktemp -d)
  cp "$(command -v rg)" "$work/rg"
  tar -czf "$archive" -C "$work" rg
  rm -rf "$work"
fi
mkdir -p "$dest"
cd "$dest"
[ -f package.json ] || echo '{"name":"agent-workflows-test-host","private":true}' > package.json
# Under `npm test`, npm's own npm_* variables describe this project; the install is of another one.
for name in $(env | grep -o '^npm_[A-Za-z0-9_]*' || true); do unset "$name"; done
# npm_config_yes: a native module's install step runs `npx node-gyp`. npm_config_unsafe_perm:
# code-server's postinstall refuses to run as root without it (npm 11 no longer knows the flag,
# but the script still reads the variable).
echo "test host: installing code-server $version (once, ~1 minute)"
npm_config_yes=true npm_config_unsafe_perm=true npm install --no-audit --no-fund "code-server@$version"
echo "test host: code-server $version installed in $dest"
