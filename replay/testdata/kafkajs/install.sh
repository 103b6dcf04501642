#!/bin/sh
# Installs kafkajs for replay's interop test (TestInteropKafkajs), which
# never downloads anything itself: it skips unless EVTOOL_KAFKAJS_DIR names
# a node_modules directory holding kafkajs.
#
#   sh replay/testdata/kafkajs/install.sh [DIR]    # default DIR: replay/testdata/kafkajs
#   EVTOOL_KAFKAJS_DIR=DIR/node_modules go test ./replay/ -run TestInterop
set -eu
dir=${1:-$(dirname "$0")}
npm install --prefix "$dir" --no-audit --no-fund --no-save kafkajs@2.2.4
echo "EVTOOL_KAFKAJS_DIR=$(cd "$dir" && pwd)/node_modules"
