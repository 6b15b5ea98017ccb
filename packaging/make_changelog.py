#!/usr/bin/env python3
"""Writes the package's changelog.gz in Debian's changelog format from the project's history:
one entry for the version, its items the commit subjects, newest first, dated by the newest
commit (so the same checkout gives the same bytes). Without git (a source tarball): one item."""
import gzip
import subprocess
import sys
import textwrap
from email.utils import formatdate

source, version, out = sys.argv[1:4]
maintainer = "memlens developers <memlens@users.noreply.github.com>"
try:
    log = subprocess.run(["git", "-C", source, "log", "--format=%ct%x09%s"], check=True, capture_output=True, text=True).stdout
    commits = [line.split("\t", 1) for line in log.splitlines() if "\t" in line]
except (OSError, subprocess.CalledProcessError):
    commits = []
when = int(commits[0][0]) if commits else 0
subjects = [s for _, s in commits] or [f"Release {version}."]
items = []
for s in subjects:
    lines = textwrap.wrap(s, width=74) or ["(no subject)"]
    items.append("  * " + lines[0] + "".join("\n    " + l for l in lines[1:]))
date = formatdate(when).replace("-0000", "+0000")
text = f"memlens ({version}) unstable; urgency=medium\n\n" + "\n".join(items) + f"\n\n -- {maintainer}  {date}\n"
with open(out, "wb") as f:
    # mtime 0 and no file name: the same history gives the same bytes (lintian wants gzip -n).
    with gzip.GzipFile(filename="", mode="wb", fileobj=f, compresslevel=9, mtime=0) as z:
        z.write(text.encode())
