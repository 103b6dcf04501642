#!/bin/sh
# consumers check on a synthetic catalog (100 types x 10 versions x 20
# consumers by default) against compat check of the same catalog, in one
# process; flags pass through (-rounds, -types, -versions, -consumers).
set -e
cd "$(dirname "$0")/../.."
exec go run ./bench/consumers "$@"
