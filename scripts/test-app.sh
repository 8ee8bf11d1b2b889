#!/usr/bin/env bash
# App-repo test, run by CI apart from `npm test`, once per Node release: the package as an app
# installs it.
#
# 1. `npm pack` the project (`prepack` builds dist/), or take the tarball CI packed (--tarball);
#    check what it ships (pack-tarball.sh);
# 2. make an app folder OUTSIDE the clone (mktemp) and install the tarball alone there (the npm
#    cache is shared: --prefer-offline): its node_modules must stay within MAX_APP_MB (du -sm), with
#    no install script of the package's own and neither optional peer (promptfoo, node-sql-parser);
# 3. `text2sql-ladder init`: package.json must pin --promptfoo, the newest promptfoo tested on this
#    Node; `npm install` installs it; then the installed package is made read-only, as under pnpm
#    or a CI cache: fixture builds must go to the app, never into node_modules/text2sql-ladder;
# 4. a Snowflake check, with the node-sql-parser promptfoo brings; `npm run fixtures:build`,
#    `npm run audit`, `npm run eval`: exit codes and the ladder summary's numbers exactly;
# 5. examples/promptfoo-app from the same install: its eval (two recorded prompt versions) and its
#    audit, with exact numbers;
# 6. nothing resolved into the clone: every module promptfoo loaded from text2sql-ladder, and
#    better-sqlite3, lie inside the app folder;
# 7. with --viewer: the app's run in promptfoo's viewer, in headless Chromium (every rung number of
#    the column header equals the ladder summary's: tests-browser/app-viewer.test.ts).
#
# Usage: scripts/test-app.sh [--keep] [--reuse DIR] [--tarball FILE] [--node VERSION] [--promptfoo V] [--viewer]
#   --keep          leave the temporary folder for inspection
#   --reuse DIR     a folder kept by an earlier --keep run: promptfoo and better-sqlite3 stay
#                   installed there, only the new tarball is installed (minutes saved while
#                   iterating; the size check is skipped)
#   --tarball FILE  the packed package (default: npm pack the clone)
#   --node VERSION  run under this Node (default: the running one; another is installed from the
#                   npm registry: scripts/use-node.sh)
#   --promptfoo V   the promptfoo release init must pin on this Node (default: not checked)
#   --viewer        also check the run in the viewer (needs Chromium: scripts/test-browser.sh)
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
# The ceiling for an app that installs only this package (better-sqlite3 compiled included).
MAX_APP_MB=50
keep=0
reuse=""
tarball_arg=()
node_version=""
promptfoo_version=""
viewer=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --keep) keep=1 ;;
    --reuse) reuse="$2"; keep=1; shift ;;
    --tarball) tarball_arg=(--tarball "$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"); shift ;;
    --node) node_version="$2"; shift ;;
    --promptfoo) promptfoo_version="$2"; shift ;;
    --viewer) viewer=1 ;;
    *) echo "usage: scripts/test-app.sh [--keep] [--reuse DIR] [--tarball FILE] [--node VERSION] [--promptfoo V] [--viewer]" >&2; exit 2 ;;
  esac
  shift
done
if [[ -n "$reuse" ]]; then
  work="$(cd "$reuse" && pwd)"
  chmod -R u+w "$work/app/node_modules/text2sql-ladder" 2>/dev/null || true
  rm -rf "$work/example" "$work"/*.tgz
  (cd "$work/app" && find . -mindepth 1 -maxdepth 1 ! -name node_modules ! -name package.json ! -name package-lock.json -exec rm -rf {} +)
else
  work="$(mktemp -d "${TMPDIR:-/tmp}/text2sql-ladder-app.XXXXXX")"
fi
case "$work/" in "$root"/*) echo "test-app: FAIL: the temporary folder $work is inside the clone" >&2; exit 1 ;; esac
cleanup() {
  # Only the installed package was made read-only; a chmod of the whole folder would walk
  # promptfoo's tree once more before the removal walks it.
  chmod -R u+w "$work/app/node_modules/text2sql-ladder" 2>/dev/null || true
  if [[ $keep == 1 ]]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
started=$SECONDS
step() { printf '\n== %s (%ss)\n' "$1" "$((SECONDS - started))"; }
fail() { echo "test-app: FAIL: $*" >&2; exit 1; }
# expect_json FILE EXPRESSION EXPECTED: a value of a JSON file, compared as text.
expect_json() {
  local got
  got="$(node -e 'const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); console.log(JSON.stringify(eval(process.argv[2])))' "$1" "$2")"
  [[ "$got" == "$3" ]] || fail "$1: $2 is $got; expected $3"
  echo "ok  $2 = $got"
}
# run_status COMMAND...: runs it, prints its output, and leaves its exit status in $status.
run_status() { set +e; "$@" 2>&1 | tee "$work/last.log"; status=${PIPESTATUS[0]}; set -e; }

# shellcheck source=scripts/use-node.sh
source "$root/scripts/use-node.sh"
# shellcheck source=scripts/pack-tarball.sh
source "$root/scripts/pack-tarball.sh"
if [[ -n "$node_version" ]]; then
  step "Node $node_version"
  use_node "$node_version"
fi
step "npm pack"
pack_tarball ${tarball_arg[@]+"${tarball_arg[@]}"} dist/src/cli/init.js dist/datasets/promptfoo-tests.js dist/extensions/ladder-summary.js templates/app/promptfooconfig.yaml templates/app/env.ladder docs/your-app.md

step "install the tarball alone into an app folder outside the clone"
app="$work/app"
mkdir -p "$app"
cd "$app"
[[ -f package.json ]] || echo '{ "name": "ladder-app", "private": true }' > package.json
install_started=$SECONDS
npm install --no-audit --no-fund --prefer-offline --save-dev "$tarball" 2>&1 | tee "$work/install.log"
echo "install took $((SECONDS - install_started)) s"
[[ -f node_modules/text2sql-ladder/dist/src/cli/init.js ]] || fail "text2sql-ladder was not installed from the tarball"
[[ -L node_modules/text2sql-ladder ]] && fail "node_modules/text2sql-ladder is a link, not an installed copy"
grep -q 'install-scripts .*text2sql-ladder@' "$work/install.log" && fail "npm lists an install script of text2sql-ladder"
if [[ -z "$reuse" ]]; then
  for peer in promptfoo node-sql-parser; do [[ ! -e node_modules/$peer ]] || fail "$peer was installed with the package alone"; done
  # The figure docs/your-app.md reports: du -sm, MiB of disk blocks.
  app_mb="$(du -sm node_modules | cut -f1)"
  echo "node_modules of an app with only text2sql-ladder: ${app_mb} MB, $(npm ls --all --parseable 2>/dev/null | tail -n +2 | sort -u | wc -l) packages; largest:"
  du -sm node_modules/* node_modules/@*/* 2>/dev/null | sort -rn | head -n 4
  [[ $app_mb -le $MAX_APP_MB ]] || fail "node_modules is ${app_mb} MB with only text2sql-ladder; the ceiling is ${MAX_APP_MB} MB"
else
  echo "size check skipped (--reuse: promptfoo is installed already)"
fi

step "text2sql-ladder init (pins promptfoo for Node $(node -p process.versions.node))"
npx text2sql-ladder init . 2>&1 | tee "$work/init.log"
grep -q '^warning:' "$work/init.log" && fail "init warned on a tested Node"
for file in promptfooconfig.yaml .env.ladder fixtures/shop/fixture.yaml datasets/questions.yaml recordings/baseline.jsonl; do [[ -f $file ]] || fail "init did not write $file"; done
run_status npx text2sql-ladder init .
[[ $status == 2 ]] || fail "a second init exited $status; expected 2 (files exist, no --force)"
pinned="$(node -p 'require("./package.json").devDependencies.promptfoo')"
echo "package.json pins promptfoo $pinned"
[[ -z "$promptfoo_version" || "$pinned" == "$promptfoo_version" ]] || fail "init pinned promptfoo $pinned on Node $(node -p process.versions.node); expected $promptfoo_version"

step "npm install (promptfoo $pinned)"
install_started=$SECONDS
npm install --no-audit --no-fund --prefer-offline --loglevel=error
echo "install took $((SECONDS - install_started)) s"
[[ "$(node -p 'require("./node_modules/promptfoo/package.json").version')" == "$pinned" ]] || fail "promptfoo $pinned was not installed"
chmod -R a-w node_modules/text2sql-ladder
touch "$work/installed.marker"
if [[ $(id -u) != 0 ]]; then
  touch node_modules/text2sql-ladder/.probe 2>/dev/null && fail "could not make the installed package read-only"
  echo "node_modules/text2sql-ladder is read-only"
else
  # root writes through file modes: the check below (no file newer than the install) still holds.
  echo "node_modules/text2sql-ladder is read-only for other users (running as root: modes do not stop root)"
fi

step "Snowflake SQL with node-sql-parser (promptfoo's optional dependency satisfies the optional peer)"
[[ -f node_modules/node-sql-parser/build/snowflake.js ]] || fail "node-sql-parser is not installed beside promptfoo $pinned"
run_status bash -c "echo 'SELECT a FROM t QUALIFY x = 1' | npx text2sql-ladder check --dialect snowflake"
[[ $status == 0 ]] || fail "check --dialect snowflake exited $status with node-sql-parser installed; expected 0"

step "npm run fixtures:build"
npm run --silent fixtures:build | tee "$work/build.txt"
[[ $(grep -cE ' [0-9a-f]{64} ' "$work/build.txt") == 4 ]] || fail "fixtures build did not print 4 checksums (2 snapshots, 2 role copies)"
[[ -d .text2sql-ladder/cache/fixtures ]] || fail "the fixture cache is not in the app (.text2sql-ladder/cache/fixtures)"

step "npm run audit (the scaffold's golds are sound)"
run_status npm run --silent audit
[[ $status == 0 ]] || fail "audit exited $status; expected 0"

step "npm run eval in the scaffold"
run_status npm run eval
[[ $status == 0 ]] || fail "npm run eval exited $status; expected 0"
for noise in 'Share with your team' 'telemetry.shutdown' 'support ended' 'text2sql-ladder: warning'; do
  grep -q "$noise" "$work/last.log" && fail "promptfoo printed \"$noise\""
done
expect_json out/eval-summary.json 'd.length' '1'
expect_json out/eval-summary.json '[d[0].provider, d[0].items, d[0].scored, d[0].errors]' '["baseline",5,5,0]'
expect_json out/eval-summary.json '[d[0].endToEnd.passed, d[0].endToEnd.n]' '[4,5]'
expect_json out/eval-summary.json '[d[0].executionSuccess.passed, d[0].executionSuccess.n, d[0].correctAmongExecuted.passed]' '[3,3,2]'
expect_json out/eval-summary.json 'd[0].runs[0].snapshots.map((s) => [s.database, s.role, s.name])' '[["shop",null,"base"],["shop",null,"later"],["shop","reporting","base"],["shop","reporting","later"]]'
expect_json out/eval.json '[d.results.stats.successes, d.results.stats.failures, d.results.stats.errors]' '[4,1,0]'
[[ -z "$(find node_modules/text2sql-ladder -newer "$work/installed.marker" -not -type d 2>/dev/null | head -n 1)" ]] || fail "files were written inside node_modules/text2sql-ladder"

step "examples/promptfoo-app from the same install"
example="$work/example"
mkdir -p "$example"
(cd "$root/examples/promptfoo-app" && tar --exclude=node_modules --exclude=.promptfoo --exclude=.text2sql-ladder --exclude=out -cf - .) | (cd "$example" && tar -xf -)
ln -s "$app/node_modules" "$example/node_modules"
cd "$example"
run_status npm run eval
[[ $status == 0 ]] || fail "examples/promptfoo-app: npm run eval exited $status; expected 0"
node "$root/examples/promptfoo-app/expected-summary.cjs" out/eval-summary.json || fail "examples/promptfoo-app: the summary differs from expected-summary.cjs"
run_status npm run --silent audit
[[ $status == 0 ]] || fail "examples/promptfoo-app: audit exited $status; expected 0 (notes only)"
grep -q '0 errors, 0 warnings, 3 notes' "$work/last.log" || fail "examples/promptfoo-app: audit counts differ from 0 errors, 0 warnings, 3 notes"
# One broken gold (a column that does not exist): audit names it and exits 1.
sed 's/SELECT MAX(paid_on) FROM payments/SELECT MAX(paid_at) FROM payments/' datasets/billing.yaml > datasets/broken.yaml
run_status npx text2sql-ladder audit datasets/broken.yaml --fixtures fixtures
[[ $status == 1 ]] || fail "audit of a dataset with a broken gold exited $status; expected 1"
grep -q 'gold_error' "$work/last.log" || fail "audit did not report the broken gold as gold_error"
grep -q 'last-payment' "$work/last.log" || fail "audit did not name the item of the broken gold"

step "nothing resolves into the clone"
cd "$app"
node --input-type=module -e '
import { createRequire } from "node:module";
const require = createRequire(process.cwd() + "/node_modules/text2sql-ladder/package.json");
const files = [require.resolve("better-sqlite3"), require.resolve("text2sql-ladder/assertions"), require.resolve("promptfoo")];
const outside = files.filter((file) => !file.startsWith(process.cwd() + "/"));
console.log(files.join("\n"));
if (outside.length > 0) { console.error("resolved outside the app: " + outside.join(", ")); process.exit(1); }'
grep -q "$root" out/eval.json && fail "out/eval.json names a file in the clone ($root)"
echo "every module and file is inside $app"

if [[ $viewer == 1 ]]; then
  step "the app's run in the viewer (promptfoo $pinned, Node $(node -p process.versions.node), headless Chromium)"
  APP_DIR="$app" bash "$root/scripts/test-browser.sh" tests-browser/app-viewer.test.ts
fi

step "app test passed in $((SECONDS - started)) s"
