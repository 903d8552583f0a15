#!/usr/bin/env bash
# Install the three hosts from npm into a cache keyed by version (reused between runs on one machine) and print
# the directories holding their binaries, ':'-separated, on stdout. Versions: the ones the suite was measured
# with (issue 9); override with MEMDIR_E2E_CLAUDE / MEMDIR_E2E_CODEX / MEMDIR_E2E_OPENCODE.
set -euo pipefail
CACHE="${MEMDIR_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/memdir-e2e}"
PKGS=("@anthropic-ai/claude-code@${MEMDIR_E2E_CLAUDE:-2.1.197}:claude"
      "@openai/codex@${MEMDIR_E2E_CODEX:-0.171.0}:codex"
      "opencode-ai@${MEMDIR_E2E_OPENCODE:-1.18.33}:opencode")
if ! command -v npm >/dev/null && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  echo "installing nodejs and npm from Debian" >&2
  apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >&2
fi
command -v npm >/dev/null || { echo "install_hosts.sh: npm is required (Node.js >= 18)" >&2; exit 1; }
major="$(node -p 'process.versions.node.split(".")[0]')"
[ "$major" -ge 18 ] || { echo "install_hosts.sh: Node.js >= 18 is required (found $(node --version))" >&2; exit 1; }
dirs=()
for p in "${PKGS[@]}"; do
  spec="${p%:*}"; bin="${p##*:}"
  dir="$CACHE/npm/$(echo "$spec" | tr '/@' '__')"
  if [ ! -x "$dir/node_modules/.bin/$bin" ]; then
    rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
    echo "installing $spec into $dir" >&2
    npm install --prefix "$dir.tmp" --no-audit --no-fund --loglevel=error "$spec" >&2
    rm -rf "$dir" && mv "$dir.tmp" "$dir"
  fi
  "$dir/node_modules/.bin/$bin" --version >/dev/null 2>&1 || { echo "install_hosts.sh: $spec does not run" >&2; exit 1; }
  dirs+=("$dir/node_modules/.bin")
done
(IFS=:; echo "${dirs[*]}")
