#!/usr/bin/env bash
# `memlens mcp` under the official MCP TypeScript SDK client (npm @modelcontextprotocol/sdk,
# pinned in package.json, installed once into the build folder): the summary tool's peak must
# equal `memlens summary --json`'s. Skipped (77) without node and npm.
# Usage: sdk_client_test.sh WORKDIR MEMLENS ROOT SNAPSHOT
set -euo pipefail
work=$1 memlens=$2 root=$3 snapshot=$4
here=$(cd "$(dirname "$0")" && pwd)
command -v node >/dev/null && command -v npm >/dev/null || { echo "node or npm missing: skipped"; exit 77; }
mkdir -p "$work"
cp "$here/package.json" "$here/sdk_client.mjs" "$work/"
if [ ! -d "$work/node_modules/@modelcontextprotocol/sdk" ]; then
  (cd "$work" && timeout 600 npm install --no-audit --no-fund --silent) || { echo "npm install failed"; exit 1; }
fi
got=$(cd "$work" && node sdk_client.mjs "$memlens" "$root" "$snapshot")
want=$("$memlens" summary "$snapshot" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["devices"][0]["peak_active_bytes"])')
peak=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["peak_active_bytes"])' "$got")
echo "SDK client: $got; memlens summary --json: peak_active_bytes $want"
[ "$peak" = "$want" ] || { echo "the SDK client's peak $peak differs from the CLI's $want"; exit 1; }
