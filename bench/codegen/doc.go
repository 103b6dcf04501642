// Package codegen benchmarks the Go code `evtool gen go` generates against
// plain encoding/json and santhosh-tekuri/jsonschema on one realistic
// payload (testdata/checkout.json, about 1.5 KB, for the schema in
// catalog/). events/ holds the generated code, plain/ the same types
// without methods (the encoding/json baseline); run.sh adds the code of
// github.com/atombender/go-jsonschema for the same schema. See
// BENCHMARKS.md ("Code generation").
package codegen
