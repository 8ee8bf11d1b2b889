#!/usr/bin/env bash
# npm run view: the promptfoo web viewer on the project's .promptfoo data (port 15500, no browser
# opened, no prompt). Stop it with Ctrl-C. PORT overrides the port.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/promptfoo-env.sh
exec "$PROMPTFOO_BIN" view --port "${PORT:-15500}" -n "$@"
