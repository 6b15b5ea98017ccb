#!/usr/bin/env bash
# Checks the .deb `make package` built: size, lintian errors, the files a distribution expects,
# that every shared library the binary loads comes from a package its Depends names, and that the
# packaged binary runs: --version, summary of a snapshot, and the GUI's start under a virtual
# display; and that the debug file beside it is the binary's (the same build id).
# Usage: check_deb.sh DEB SNAPSHOT [DEBUG]
set -euo pipefail
deb=$1
snapshot=$2
debug=${3:-}
fail() { echo "check_deb: $deb: $*" >&2; exit 1; }

size=$(stat -c %s "$deb")
[ "$size" -le $((15 * 1024 * 1024)) ] || fail "$size bytes, more than 15 MiB"

# lintian: errors fail; warnings and pedantic notes are kept (README, packaging).
errors=$(lintian --allow-root "$deb" 2>/dev/null | grep '^E:' || true)
[ -z "$errors" ] || fail "lintian errors:
$errors"

contents=$(dpkg-deb -c "$deb")
for f in ./usr/bin/memlens ./usr/share/man/man1/memlens.1.gz ./usr/share/bash-completion/completions/memlens \
         ./usr/share/doc/memlens/copyright ./usr/share/doc/memlens/changelog.gz; do
  grep -q " $f\$" <<<"$contents" || fail "no $f"
done

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
dpkg-deb -x "$deb" "$root"
binary=$root/usr/bin/memlens
file "$binary" | grep -q 'stripped' && ! file "$binary" | grep -q 'not stripped' || fail "the binary carries its debug information"

# Every library the binary loads belongs to a package in Depends (or to one of those packages'
# own dependencies, which apt pulls in with them).
depends=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/(.*//; s/ //g')
closure=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances \
            $depends 2>/dev/null | grep -v '^ ' | sed 's/:.*//' | sort -u)
for lib in $(ldd "$binary" | awk '/=>/ {print $3}'); do
  owner=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | head -1 | cut -d: -f1) || true
  [ -n "$owner" ] || owner=$(dpkg -S "$lib" 2>/dev/null | head -1 | cut -d: -f1) || true
  [ -n "$owner" ] || fail "$lib belongs to no package"
  grep -qx "$owner" <<<"$closure" || fail "$lib comes from $owner, which Depends does not pull in"
done

buildId() { readelf -n "$1" 2>/dev/null | awk '/Build ID/ {print $3}'; }
if [ -n "$debug" ]; then
  [ -n "$(buildId "$binary")" ] && [ "$(buildId "$binary")" = "$(buildId "$debug")" ] || fail "$debug is not this binary's debug file"
  readelf -S "$debug" | grep -q debug_info || fail "$debug has no debug information"
fi

env -u DISPLAY "$binary" --version | grep -q '^memlens [0-9]' || fail "--version"
"$binary" summary "$snapshot" --no-cache >/dev/null || fail "summary of $snapshot"
# The GUI starts, shows the file, and is still running after 5 s (timeout's 124).
set +e
XDG_CACHE_HOME=$root/cache timeout 5 xvfb-run -a "$binary" --no-cache "$snapshot" >/dev/null 2>&1
status=$?
set -e
[ "$status" = 124 ] || fail "the GUI exited with $status under xvfb-run"
echo "check_deb: $deb: $((size / 1024)) KiB, lintian without errors, runs"
