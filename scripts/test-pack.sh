#!/usr/bin/env bash
# Pack test for the vitest matchers, run by CI apart from `npm test`.
#
# 1. `npm pack` the project (its `prepare` script builds dist/ with tsc);
# 2. copy examples/vitest-app into a temporary folder and install the tarball there, as an app
#    repo would (this compiles better-sqlite3: about 70 s on this machine);
# 3. check that promptfoo (an optional peer, 1.4 GB) was NOT installed, and that the
#    `text2sql-ladder/vitest` entry loads nothing from promptfoo;
# 4. run the app's vitest suite and its eslint (typescript-eslint's no-floating-promises);
# 5. check that eslint DOES report an un-awaited async matcher (lint-fixtures/floating.test.ts).
#
# Usage: scripts/test-pack.sh [--keep]   (--keep leaves the temporary folder for inspection)
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
keep=0
[[ "${1:-}" == "--keep" ]] && keep=1
work="$(mktemp -d "${TMPDIR:-/tmp}/text2sql-ladder-pack.XXXXXX")"
cleanup() { if [[ $keep == 1 ]]; then echo "kept $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT
started=$SECONDS
step() { printf '\n== %s (%ss)\n' "$1" "$((SECONDS - started))"; }
fail() { echo "test-pack: FAIL: $*" >&2; exit 1; }

# shellcheck source=scripts/pack-tarball.sh
source "$root/scripts/pack-tarball.sh"
step "npm pack"
pack_tarball dist/matchers/vitest.js dist/matchers/vitest.d.ts dist/matchers/index.js dist/matchers/index.d.ts

step "copy examples/vitest-app"
app="$work/app"
mkdir -p "$app"
(cd "$root/examples/vitest-app" && tar --exclude=node_modules --exclude='db/*.sqlite' -cf - .) | (cd "$app" && tar -xf -)
cd "$app"
npm pkg set "devDependencies.text2sql-ladder=file:$tarball"

step "npm install (compiles better-sqlite3)"
npm install --no-audit --no-fund --loglevel=error

step "optional peers stay out"
[[ -d node_modules/text2sql-ladder/dist/matchers ]] || fail "text2sql-ladder was not installed from the tarball"
# Stack frames and the docs name source files (src/rungs/…): every source a dist/ source map names is installed.
node --input-type=module - node_modules/text2sql-ladder <<'NODE' || fail "a source map names a source file the package does not ship"
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
const root = process.argv[2];
const missing = [];
let maps = 0;
for (const entry of readdirSync(path.join(root, 'dist'), { recursive: true })) {
  if (!entry.endsWith('.js.map')) continue;
  maps += 1;
  const file = path.join(root, 'dist', entry);
  for (const source of JSON.parse(readFileSync(file, 'utf8')).sources) {
    const resolved = path.resolve(path.dirname(file), source);
    if (!existsSync(resolved)) missing.push(path.relative(root, resolved));
  }
}
if (missing.length > 0 || maps === 0) {
  console.error(`${maps} source maps; not shipped: ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ` (+${missing.length - 5} more)` : ''}`);
  process.exit(1);
}
NODE
[[ ! -e node_modules/promptfoo ]] || fail "promptfoo was installed into the app"
if npm ls promptfoo --all --parseable 2>/dev/null | grep -q promptfoo; then fail "promptfoo is in the app's tree"; fi
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
echo "promptfoo: not installed, not imported"

step "vitest run"
npx vitest run

step "eslint"
npx eslint .

step "eslint catches an un-awaited async matcher"
set +e
lint_output="$(npx eslint --no-ignore lint-fixtures/floating.test.ts 2>&1)"
lint_status=$?
set -e
echo "$lint_output"
[[ $lint_status == 1 ]] || fail "eslint exited $lint_status on lint-fixtures/floating.test.ts; expected 1"
grep -q '@typescript-eslint/no-floating-promises' <<<"$lint_output" || fail "no-floating-promises did not fire"

step "typecheck"
npx tsc --noEmit

step "pack test passed in $((SECONDS - started)) s"
