// Package protofeatures is the generated Go code of the two editions
// feature files that protocompile serves as standard imports and that
// protobuf-go has no Go package for: google/protobuf/cpp_features.proto
// and java_features.proto.
//
// Linked in, they are registered in protoregistry.GlobalFiles, and
// protocompile's package initialisation takes them from there: without
// them, it unmarshals and builds both descriptors from its embedded copies
// at every start of every evtool command (about 1,800 allocations, the
// largest package initialisation of evtool). format/protobuf imports this
// package for that. The descriptors are protocompile's own, so what a
// compilation sees is unchanged.
package protofeatures

//go:generate go run ./gen
