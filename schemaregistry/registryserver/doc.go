// Package registryserver is evtool's schema registry server (`evtool
// registry serve`): Server is a Confluent-compatible REST API over a
// catalog directory: subjects are types, versions are versions, and
// compatibility is decided by evtool's engine (package compat), as `evtool
// compat check` decides it. A registration that passes is written into the
// catalog atomically; schema ids are kept in evtool.ids.json beside
// evtool.yaml. Registry forms, subjects and strategies are package
// schemaregistry's, shared with the client. See docs/registry.md.
package registryserver
