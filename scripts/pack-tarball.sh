# Sourced by test-pack.sh and test-app.sh (needs $root, $work and a fail function).
# pack_tarball [--tarball FILE] FILE...: `npm pack` the clone into $work (its `prepack` builds dist/
# without source maps: npm run build:package), or take the tarball given (CI packs once for every
# app test), then check it: it holds every FILE (paths inside the package), dist/ prebuilt, no
# TypeScript source (declarations aside), no source map or sourceMappingURL comment (they would
# point at sources it does not ship), nothing of dist/bench, dist/scripts or tests, and no script
# npm runs when the package is installed (preinstall, install, postinstall, prepare). Sets
# $tarball_name and $tarball.
pack_tarball() {
  if [[ "${1:-}" == --tarball ]]; then
    tarball="$2"
    shift 2
    [[ -f "$tarball" ]] || fail "no tarball at $tarball"
    tarball_name="$(basename "$tarball")"
  else
    cd "$root"
    tarball_name="$(npm pack --pack-destination "$work" --silent | tail -n 1)"
    tarball="$work/$tarball_name"
    [[ -f "$tarball" ]] || fail "npm pack did not write $tarball"
  fi
  local listing file found
  listing="$(tar -tzf "$tarball")"
  for file in dist/src/index.js dist/src/index.d.ts dist/cli/text2sql-ladder.js "$@"; do
    grep -qx "package/$file" <<<"$listing" || fail "tarball lacks $file"
  done
  found="$(grep -E '\.(ts|tsx|mts|cts)$' <<<"$listing" | grep -vE '\.d\.(ts|mts|cts)$' || true)"
  [[ -z "$found" ]] || fail "tarball ships TypeScript sources: $(head -n 3 <<<"$found" | tr '\n' ' ')"
  found="$(grep -E '\.map$|^package/dist/(bench|scripts|tests)/|^package/tests' <<<"$listing" || true)"
  [[ -z "$found" ]] || fail "tarball ships build leftovers: $(head -n 3 <<<"$found" | tr '\n' ' ')"
  if tar -xzOf "$tarball" --wildcards 'package/dist/*.js' | grep -q 'sourceMappingURL='; then fail "a dist/ file names a source map"; fi
  tar -xzOf "$tarball" package/package.json | node -e '
    const scripts = JSON.parse(require("fs").readFileSync(0, "utf8")).scripts ?? {};
    const hooks = ["preinstall", "install", "postinstall", "prepare"].filter((name) => name in scripts);
    if (hooks.length > 0) { console.error(`test: FAIL: the package runs scripts when installed: ${hooks.join(", ")}`); process.exit(1); }'
  echo "tarball $tarball_name: $(du -h "$tarball" | cut -f1), $(wc -l <<<"$listing") files; no TypeScript sources, source maps or install scripts"
}
