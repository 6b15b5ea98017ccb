#!/usr/bin/env bash
# Validates the desktop entry, AppStream metainfo and MIME type with Debian's own tools.
set -euo pipefail
dir=$1
command -v desktop-file-validate >/dev/null || { echo "desktop-file-validate not installed"; exit 1; }
desktop-file-validate "$dir/io.github.memlens.Memlens.desktop"
if command -v appstreamcli >/dev/null; then
  appstreamcli validate --no-net --pedantic "$dir/io.github.memlens.Memlens.metainfo.xml"
fi
xmllint_ok=1
if command -v xmllint >/dev/null; then xmllint --noout "$dir/memlens-mime.xml" || xmllint_ok=0; fi
[ "$xmllint_ok" = 1 ]
echo "packaging metadata valid"
