#!/bin/sh
# Installs the JavaScript clients that cmd/evtool's interop tests drive
# (produce_nodeclients_test.go: kafkajs, the CloudEvents SDK, the registry
# clients of kafkajs and Confluent), pinned. The tests never download: they
# skip unless EVTOOL_TEST_NODE_MODULES names a node_modules directory
# holding these packages. The same directory serves replay's kafkajs test
# (EVTOOL_KAFKAJS_DIR) and schemaregistry's client tests.
#
#   sh cmd/evtool/testdata/clients/install.sh [DIR]   # default DIR: ${TMPDIR:-/tmp}/evtool-clients
#   EVTOOL_TEST_NODE_MODULES=DIR/node_modules go test ./cmd/evtool -run 'JS$'
#
# @kafkajs/confluent-schema-registry 4.1.0 declares node >= 22; the tests
# pass with node 20 (npm warns EBADENGINE).
set -eu
dir=${1:-${TMPDIR:-/tmp}/evtool-clients}
mkdir -p "$dir"
npm install --prefix "$dir" --no-audit --no-fund --no-save \
	kafkajs@2.2.4 \
	cloudevents@10.0.0 \
	@kafkajs/confluent-schema-registry@4.1.0 \
	@confluentinc/schemaregistry@1.10.1
modules=$(cd "$dir" && pwd)/node_modules
echo "EVTOOL_TEST_NODE_MODULES=$modules"
echo "EVTOOL_KAFKAJS_DIR=$modules"
