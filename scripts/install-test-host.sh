#!/usr/bin/env bash
# Installs the offline VS Code test host: code-server (which bundles the VS Code server, its web
# workbench and a Node extension host) into .vscode-test/, outside the project's dependencies,
# because it is ~300 MB and demands Node 20 exactly. See docs/testing.md.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
version=${CODE_SERVER_VERSION:-4.100.3}
dest="$here/.vscode-test/code-server-$version"
if [ -x "$dest/node_modules/.bin/code-server" ]; then
  echo "test host: code-server $version already installed in $dest"
  exit 0
fi
command -v rg >/dev/null || { echo "test host: ripgrep (rg) is missing; install the Debian package 'ripgrep'" >&2; exit 1; }
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
# npm_config_yes: a native module's install step runs `npx node-gyp`. npm_config_unsafe_perm:
# code-server's postinstall refuses to run as root without it (npm 11 no longer knows the flag,
# but the script still reads the variable).
npm_config_yes=true npm_config_unsafe_perm=true npm install --no-audit --no-fund "code-server@$version"
echo "test host: code-server $version installed in $dest"
