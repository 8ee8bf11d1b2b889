#!/usr/bin/env bash
# Pack test for the vitest matchers, run by CI apart from `npm test`, once per Node release.
#
# 1. `npm pack` the project (`prepack` builds dist/), or take the tarball CI packed (--tarball);
#    check what it ships (pack-tarball.sh);
# 2. copy examples/vitest-app into a temporary folder and install the tarball there, as an app
#    repo would, with the first vitest release asked for (this compiles better-sqlite3: 1–2 min);
# 3. check that the optional peers promptfoo (1.4 GB) and node-sql-parser (90 MB) were NOT
#    installed, that the `text2sql-ladder/vitest` entry loads nothing from promptfoo, and that a
#    Snowflake check without node-sql-parser stops with the install command (exit 2);
# 4. for each vitest release asked for (installed over the previous one, same folder: npm resolves
#    the peer ranges again, better-sqlite3 stays built): the app's vitest suite (exact matcher
#    messages included), its eslint (typescript-eslint's no-floating-promises), that eslint DOES
#    report an un-awaited async matcher (lint-fixtures/floating.test.ts), and tsc;
# 5. with --refuse VERSION: that vitest release on this Node stops at the matchers' setup with the
#    message saying which Node it needs (vitest 5 on Node 20).
#
# Usage: scripts/test-pack.sh [--keep] [--tarball FILE] [--node VERSION] [--vitest V[,V...]] [--refuse V]
#   --keep          leave the temporary folder for inspection
#   --tarball FILE  the packed package (default: npm pack the clone)
#   --node VERSION  run under this Node (default: the running one; another is installed from the
#                   npm registry: scripts/use-node.sh)
#   --vitest LIST   vitest releases to run, in order (default: the example's own)
#   --refuse V      a vitest release the matchers must refuse on this Node
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
keep=0
tarball_arg=()
node_version=""
vitest_list=""
refuse=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --keep) keep=1 ;;
    --tarball) tarball_arg=(--tarball "$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"); shift ;;
    --node) node_version="$2"; shift ;;
    --vitest) vitest_list="$2"; shift ;;
    --refuse) refuse="$2"; shift ;;
    *) echo "usage: scripts/test-pack.sh [--keep] [--tarball FILE] [--node VERSION] [--vitest V[,V...]] [--refuse V]" >&2; exit 2 ;;
  esac
  shift
done
work="$(mktemp -d "${TMPDIR:-/tmp}/text2sql-ladder-pack.XXXXXX")"
cleanup() { if [[ $keep == 1 ]]; then echo "kept $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT
started=$SECONDS
step() { printf '\n== %s (%ss)\n' "$1" "$((SECONDS - started))"; }
fail() { echo "test-pack: FAIL: $*" >&2; exit 1; }

# shellcheck source=scripts/use-node.sh
source "$root/scripts/use-node.sh"
# shellcheck source=scripts/pack-tarball.sh
source "$root/scripts/pack-tarball.sh"
if [[ -n "$node_version" ]]; then
  step "Node $node_version"
  use_node "$node_version"
fi

step "npm pack"
pack_tarball ${tarball_arg[@]+"${tarball_arg[@]}"} dist/matchers/vitest.js dist/matchers/vitest.d.ts dist/matchers/index.js dist/matchers/index.d.ts

step "copy examples/vitest-app"
app="$work/app"
mkdir -p "$app"
(cd "$root/examples/vitest-app" && tar --exclude=node_modules --exclude='db/*.sqlite' -cf - .) | (cd "$app" && tar -xf -)
cd "$app"
npm pkg set "devDependencies.text2sql-ladder=file:$tarball"
IFS=, read -r -a vitest_releases <<<"${vitest_list:-$(node -p 'require("./package.json").devDependencies.vitest')}"
npm pkg set "devDependencies.vitest=${vitest_releases[0]}"

step "npm install with vitest ${vitest_releases[0]} (compiles better-sqlite3)"
npm install --no-audit --no-fund --prefer-offline --loglevel=error

step "optional peers stay out"
[[ -d node_modules/text2sql-ladder/dist/matchers ]] || fail "text2sql-ladder was not installed from the tarball"
[[ ! -e node_modules/promptfoo ]] || fail "promptfoo was installed into the app"
[[ ! -e node_modules/node-sql-parser ]] || fail "node-sql-parser was installed into the app"
for peer in promptfoo node-sql-parser; do
  if npm ls "$peer" --all --parseable 2>/dev/null | grep -q "$peer"; then fail "$peer is in the app's tree"; fi
done
# promptfoo is not installed, so any import of it from the matchers would fail to load: the
# aggregator is loaded here directly, and the `./vitest` entry by the vitest run below. Then the
# static import closure of the `./vitest` entry is listed: no module of it may import promptfoo.
node --input-type=module -e 'await import("text2sql-ladder/matchers"); console.log("text2sql-ladder/matchers loads without promptfoo")'
node --input-type=module - node_modules/text2sql-ladder/dist/matchers/vitest.js <<'NODE'
import { readFileSync } from 'node:fs';
import path from 'node:path';
const seen = new Set();
const external = new Set();
const pattern = /(?:^|\n)\s*(?:import|export)[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
function walk(file) {
  if (seen.has(file)) return;
  seen.add(file);
  for (const match of readFileSync(file, 'utf8').matchAll(pattern)) {
    const specifier = match[1] ?? match[2] ?? match[3];
    if (specifier.startsWith('.')) walk(path.resolve(path.dirname(file), specifier));
    else external.add(specifier);
  }
}
walk(path.resolve(process.argv[2]));
const packages = [...external].sort();
console.log(`text2sql-ladder/vitest: ${seen.size} modules; packages imported: ${packages.join(', ')}`);
if (packages.some((name) => name === 'promptfoo' || name.startsWith('promptfoo/'))) {
  console.error('test-pack: FAIL: the ./vitest entry imports promptfoo');
  process.exit(1);
}
NODE
echo "promptfoo: not installed, not imported; node-sql-parser: not installed"

step "Snowflake without node-sql-parser: exit 2 and the install command"
set +e
snowflake_output="$(echo 'SELECT a FROM t QUALIFY x = 1' | npx text2sql-ladder check --dialect snowflake 2>&1)"
snowflake_status=$?
set -e
echo "$snowflake_output"
[[ $snowflake_status == 2 ]] || fail "check --dialect snowflake exited $snowflake_status without node-sql-parser; expected 2"
grep -qF "npm install --save-dev node-sql-parser@'^5.4.0'" <<<"$snowflake_output" || fail "the Snowflake check did not name the install command"

# run_suite RELEASE: the app's checks on the installed vitest, which must be RELEASE.
run_suite() {
  local release="$1" installed lint_output lint_status
  installed="$(node -p 'require("vitest/package.json").version')"
  [[ "$installed" == "$release" ]] || fail "vitest $installed is installed; expected $release"
  step "vitest $release on Node $(node -p process.versions.node): vitest run"
  npx vitest run
  step "vitest $release: eslint"
  npx eslint .
  step "vitest $release: eslint catches an un-awaited async matcher"
  set +e
  lint_output="$(npx eslint --no-ignore lint-fixtures/floating.test.ts 2>&1)"
  lint_status=$?
  set -e
  echo "$lint_output"
  [[ $lint_status == 1 ]] || fail "eslint exited $lint_status on lint-fixtures/floating.test.ts; expected 1"
  grep -q '@typescript-eslint/no-floating-promises' <<<"$lint_output" || fail "no-floating-promises did not fire"
  step "vitest $release: typecheck"
  npx tsc --noEmit
}

for index in "${!vitest_releases[@]}"; do
  release="${vitest_releases[$index]}"
  if [[ $index -gt 0 ]]; then
    step "npm install vitest@$release"
    npm install --save-dev --save-exact --no-audit --no-fund --prefer-offline --loglevel=error "vitest@$release"
  fi
  run_suite "$release"
done

if [[ -n "$refuse" ]]; then
  step "vitest $refuse on Node $(node -p process.versions.node): the matchers refuse it"
  npm install --save-dev --save-exact --no-audit --no-fund --prefer-offline --loglevel=error "vitest@$refuse"
  set +e
  refuse_output="$(npx vitest run 2>&1)"
  refuse_status=$?
  set -e
  echo "$refuse_output" | grep -F 'text2sql-ladder/vitest' | head -n 3
  [[ $refuse_status != 0 ]] || fail "vitest $refuse ran on Node $(node -p process.versions.node); the matchers should have refused it"
  grep -qF "text2sql-ladder/vitest: vitest $refuse does not run on Node $(node -p process.versions.node)" <<<"$refuse_output" || fail "vitest $refuse failed without the matchers' message"
fi

step "pack test passed in $((SECONDS - started)) s"
