# Sourced by scripts/eval.sh and scripts/view.sh: run promptfoo offline, with its data in the project.
# Each line is a documented promptfoo 0.121 environment variable.
export PROMPTFOO_CONFIG_DIR="${PROMPTFOO_CONFIG_DIR:-$PWD/.promptfoo}"  # DB, logs, user id (default ~/.promptfoo)
export PROMPTFOO_DISABLE_TELEMETRY=1
export PROMPTFOO_DISABLE_UPDATE=1
export PROMPTFOO_DISABLE_SHARING=1
export PROMPTFOO_DISABLE_RUNTIME_WARNINGS=1        # the "Node.js 20 support ended" notice
export PROMPTFOO_PASS_RATE_THRESHOLD=0             # a completed run exits 0 even when tests fail
export NODE_NO_WARNINGS=1                          # undici's ExperimentalWarning
# No per-run log files (.promptfoo/logs/promptfoo-{debug,error}-*.log). At exit promptfoo ends their
# stream while log lines can still arrive, and a late line crashes the process with "write after
# end" (seen in CI, at random). Without the files promptfoo ends no stream. Errors still print on
# the console; set both to 0 to keep the files.
export PROMPTFOO_DISABLE_DEBUG_LOG="${PROMPTFOO_DISABLE_DEBUG_LOG:-1}"
export PROMPTFOO_DISABLE_ERROR_LOG="${PROMPTFOO_DISABLE_ERROR_LOG:-1}"
# Even with telemetry off promptfoo POSTs one "telemetry disabled" event; a dead loopback proxy
# stops it (and any other outbound HTTP). Loopback stays direct (the viewer, a local Ollama).
# LADDER_ONLINE=1 leaves the proxy settings alone, for hosted providers (OpenAI, Anthropic, ...).
if [ "${LADDER_ONLINE:-0}" != 1 ]; then
  export HTTPS_PROXY=http://127.0.0.1:9 HTTP_PROXY=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 http_proxy=http://127.0.0.1:9
  export NO_PROXY=localhost,127.0.0.1 no_proxy=localhost,127.0.0.1
fi
PROMPTFOO_BIN="$PWD/node_modules/.bin/promptfoo"
