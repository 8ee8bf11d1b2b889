# Sourced by test-pack.sh and test-app.sh (needs $root, $work and a fail function).
# pack_tarball FILE...: `npm pack` the clone into $work (its `prepare` builds dist/), fail unless the
# tarball holds every FILE (paths inside the package), and set $tarball_name and $tarball.
pack_tarball() {
  cd "$root"
  tarball_name="$(npm pack --pack-destination "$work" --silent | tail -n 1)"
  tarball="$work/$tarball_name"
  [[ -f "$tarball" ]] || fail "npm pack did not write $tarball"
  local listing file
  listing="$(tar -tzf "$tarball")"
  for file in "$@"; do
    grep -qx "package/$file" <<<"$listing" || fail "tarball lacks $file"
  done
  echo "packed $tarball_name ($(du -h "$tarball" | cut -f1))"
}
