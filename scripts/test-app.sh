#!/usr/bin/env bash
# App-repo test, run by CI apart from `npm test`: the package as an app installs it.
#
# 1. `npm pack` the project (its `prepare` script builds dist/);
# 2. make an app folder OUTSIDE the clone (mktemp), install the tarball and promptfoo there (the npm
#    cache is reused: --prefer-offline), then make the installed package read-only, as under pnpm
#    or a CI cache: fixture builds must go to the app, never into node_modules/text2sql-ladder;
# 3. `text2sql-ladder init`, `npm run fixtures:build`, `npm run audit`, `npm run eval`: exit codes
#    and the ladder summary's numbers exactly;
# 4. examples/promptfoo-app from the same install: its eval (two recorded prompt versions) and its
#    audit, with exact numbers;
# 5. nothing resolved into the clone: every module promptfoo loaded from text2sql-ladder, and
#    better-sqlite3, lie inside the app folder.
#
# Usage: scripts/test-app.sh [--keep] [--reuse DIR]
#   --keep        leave the temporary folder for inspection
#   --reuse DIR   a folder kept by an earlier --keep run: promptfoo and better-sqlite3 stay
#                 installed there, only the new tarball is installed (minutes saved while iterating)
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
keep=0
reuse=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --keep) keep=1 ;;
    --reuse) reuse="$2"; keep=1; shift ;;
    *) echo "usage: scripts/test-app.sh [--keep] [--reuse DIR]" >&2; exit 2 ;;
  esac
  shift
done
if [[ -n "$reuse" ]]; then
  work="$(cd "$reuse" && pwd)"
  chmod -R u+w "$work"
  rm -rf "$work/example" "$work"/*.tgz
  (cd "$work/app" && find . -mindepth 1 -maxdepth 1 ! -name node_modules ! -name package.json ! -name package-lock.json -exec rm -rf {} +)
else
  work="$(mktemp -d "${TMPDIR:-/tmp}/text2sql-ladder-app.XXXXXX")"
fi
case "$work/" in "$root"/*) echo "test-app: FAIL: the temporary folder $work is inside the clone" >&2; exit 1 ;; esac
cleanup() {
  chmod -R u+w "$work" 2>/dev/null || true
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

# shellcheck source=scripts/pack-tarball.sh
source "$root/scripts/pack-tarball.sh"
step "npm pack"
pack_tarball dist/src/cli/init.js dist/datasets/promptfoo-tests.js dist/extensions/ladder-summary.js templates/app/promptfooconfig.yaml templates/app/env.ladder docs/your-app.md

step "install the tarball and promptfoo into an app folder outside the clone"
app="$work/app"
mkdir -p "$app"
cd "$app"
[[ -f package.json ]] || echo '{ "name": "ladder-app", "private": true }' > package.json
install_started=$SECONDS
npm install --no-audit --no-fund --prefer-offline --loglevel=error --save-dev "$tarball" "promptfoo@0.121.20"
echo "install took $((SECONDS - install_started)) s"
[[ -f node_modules/text2sql-ladder/dist/src/cli/init.js ]] || fail "text2sql-ladder was not installed from the tarball"
[[ -L node_modules/text2sql-ladder ]] && fail "node_modules/text2sql-ladder is a link, not an installed copy"
chmod -R a-w node_modules/text2sql-ladder
touch "$work/installed.marker"
if [[ $(id -u) != 0 ]]; then
  touch node_modules/text2sql-ladder/.probe 2>/dev/null && fail "could not make the installed package read-only"
  echo "node_modules/text2sql-ladder is read-only"
else
  # root writes through file modes: the check below (no file newer than the install) still holds.
  echo "node_modules/text2sql-ladder is read-only for other users (running as root: modes do not stop root)"
fi

step "text2sql-ladder init"
npx text2sql-ladder init .
for file in promptfooconfig.yaml .env.ladder fixtures/shop/fixture.yaml datasets/questions.yaml recordings/baseline.jsonl; do [[ -f $file ]] || fail "init did not write $file"; done
run_status npx text2sql-ladder init .
[[ $status == 2 ]] || fail "a second init exited $status; expected 2 (files exist, no --force)"

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
for noise in 'Share with your team' 'telemetry.shutdown' 'support ended'; do
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

step "app test passed in $((SECONDS - started)) s"
