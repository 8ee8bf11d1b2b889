#!/usr/bin/env bash
# npm run eval [-- extra promptfoo flags]: runs the main job offline.
#   CONFIG   promptfoo config (default promptfooconfig.yaml)
#   OUTPUT   results file (default out/eval.json); the run is also stored in .promptfoo/ for the viewer
# Exit code (one rule, src/exit-codes.ts): 0 when the run completes, even with failing tests; 2 when
# the test generator finds misuse before any row (a misspelt option, an invalid item, an unknown
# fixture); 3 when the run is incomplete (ERROR rows, or lost rows; the summary names them); 1 when
# another run holds the same promptfoo state or output file (this run refuses to start);
# promptfoo's own code otherwise (1 for its config errors).
#
# One run at a time per promptfoo state folder and per output file: two runs sharing them lose rows
# silently (measured: both printed "84 passed / 58 failed" while the output held 55-67 of 142 rows).
# For runs side by side, give each its own: PROMPTFOO_CONFIG_DIR=/tmp/run2 OUTPUT=out/run2.json.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/promptfoo-env.sh
CONFIG="${CONFIG:-promptfooconfig.yaml}"
OUTPUT="${OUTPUT:-out/eval.json}"
mkdir -p "$(dirname "$OUTPUT")" "$PROMPTFOO_CONFIG_DIR"

refuse() {
  echo "npm run eval: another run is using $1 (pid ${2:-unknown}); runs that share it lose rows." >&2
  echo "  Wait for it to finish, or give this run its own state and output:" >&2
  echo "  PROMPTFOO_CONFIG_DIR=<folder> OUTPUT=<file.json> npm run eval" >&2
  exit 1
}

# take_lock <lock file> <what it guards>: held until promptfoo exits (the fd is inherited by exec),
# released by the kernel whatever ends it. Without flock(1) (macOS), a lock folder holding the pid;
# a lock whose pid is gone is stale and taken over.
take_lock() {
  local file="$1" what="$2" fd="$3"
  if command -v flock >/dev/null 2>&1; then
    eval "exec $fd>>\"\$file\""
    if ! flock -n "$fd"; then refuse "$what" "$(cat "$file.pid" 2>/dev/null || true)"; fi
    echo $$ >"$file.pid"
  else
    if ! mkdir "$file.d" 2>/dev/null; then
      local holder
      holder="$(cat "$file.d/pid" 2>/dev/null || true)"
      if [ -z "$holder" ] || kill -0 "$holder" 2>/dev/null; then refuse "$what" "$holder"; fi
      rm -rf "$file.d"
      mkdir "$file.d" 2>/dev/null || refuse "$what"
    fi
    echo $$ >"$file.d/pid"
  fi
}
# The config loads our code compiled (dist/): build first when dist/ is missing or a source is newer.
build_stamp=dist/src/index.js
if [ ! -f "$build_stamp" ] || [ -n "$(find src assertions providers matchers bin datasets extensions tsconfig.json tsconfig.build.json -newer "$build_stamp" \( -name '*.ts' -o -name '*.json' \) -print -quit 2>/dev/null)" ]; then
  echo "npm run eval: dist/ is missing or older than the sources; building it (npm run build)" >&2
  npm run --silent build >&2
fi

take_lock "$PROMPTFOO_CONFIG_DIR/.eval.lock" "the promptfoo state $PROMPTFOO_CONFIG_DIR" 8
# The output's lock sits beside it as a hidden file: a lock file must outlive the run (removing it
# would let a third run lock a fresh file while a second still holds the old one).
take_lock "$(dirname "$OUTPUT")/.$(basename "$OUTPUT").lock" "the output file $OUTPUT" 9

# A signal to npm must end promptfoo (timeout(1), CI runners and process managers signal the npm
# pid, not the group). npm passes SIGINT and SIGTERM to its child, so package.json's "eval" execs
# this script and this script execs promptfoo: the child npm signals is promptfoo itself (before,
# a `sh -c` sat between them, died alone, and promptfoo ran on and rewrote the output later).
# npm does not pass SIGHUP and exits; under npm a parent-death signal (setpriv, Linux) covers
# that and any other way npm ends. Run directly (nohup, a terminal) promptfoo keeps its parent's
# life cycle as any command does.
PARENT_DEATH=()
if [ -n "${npm_lifecycle_event:-}" ] && command -v setpriv >/dev/null 2>&1; then
  PARENT_DEATH=(setpriv --pdeathsig TERM --)
fi

# --no-table: the ladder summary (afterAll) replaces promptfoo's per-row table; pass --table to get it.
exec ${PARENT_DEATH[@]+"${PARENT_DEATH[@]}"} "$PROMPTFOO_BIN" eval -c "$CONFIG" --no-cache --no-progress-bar --no-table -o "$OUTPUT" "$@"
