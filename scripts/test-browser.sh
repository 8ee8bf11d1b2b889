#!/usr/bin/env bash
# npm run test:browser [-- FILE...]: the viewer test in headless Debian Chromium
# (tests-browser/viewer.test.ts, or the files named: scripts/test-app.sh runs app-viewer.test.ts).
# Installs Debian's chromium package when it is missing and we are root (CI); otherwise says how.
set -euo pipefail
cd "$(dirname "$0")/.."
CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$CHROMIUM" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
  else
    echo "test:browser needs Debian's chromium at $CHROMIUM: sudo apt-get install -y chromium (or set CHROMIUM)" >&2
    exit 1
  fi
fi
export CHROMIUM
[ $# -gt 0 ] || set -- tests-browser/viewer.test.ts
exec node --import tsx --test --test-reporter=spec "$@"
