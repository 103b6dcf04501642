#!/usr/bin/env bash
# Side-by-side: the labelled compatibility corpus (compat/testdata/corpus)
# through evtool's engine (one Go process) and through the npm tool
# json-schema-diff (one node process), with per-pair time ratios and every
# disagreement. json-schema-diff is installed into a temporary directory by
# this script. Usage: bench/compat/run.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-7}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v node >/dev/null || { echo "node is required" >&2; exit 2; }
(cd "$tmp" && npm install --silent --no-audit --no-fund --no-save json-schema-diff@1.0.0 >/dev/null)
echo "json-schema-diff $(node -p "require('$tmp/node_modules/json-schema-diff/package.json').version"), node $(node --version)"
go run ./bench/compat -rounds "$rounds" -jsd "$tmp" "$@"
