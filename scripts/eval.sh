#!/usr/bin/env bash
# npm run eval [-- extra promptfoo flags]: runs the main job offline.
#   CONFIG   promptfoo config (default promptfooconfig.yaml)
#   OUTPUT   results file (default out/eval.json); the run is also stored in .promptfoo/ for the viewer
# Exit code: 0 when the run completes, even with failing tests; promptfoo's own code otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/promptfoo-env.sh
CONFIG="${CONFIG:-promptfooconfig.yaml}"
OUTPUT="${OUTPUT:-out/eval.json}"
export LADDER_SUMMARY_JSON="${LADDER_SUMMARY_JSON:-${OUTPUT%.json}-summary.json}"
mkdir -p "$(dirname "$OUTPUT")"
# --no-table: the ladder summary (afterAll) replaces promptfoo's per-row table; pass --table to get it.
exec "$PROMPTFOO_BIN" eval -c "$CONFIG" --no-cache --no-progress-bar --no-table -o "$OUTPUT" "$@"
