// Package avro benchmarks the Go code `evtool gen go` generates for an Avro
// type (events/, from catalog/) against github.com/twmb/avro decoding the
// same bytes into the same struct by reflection, with and without schema
// resolution (a v2 consumer reading v1 data). See BENCHMARKS.md ("Code
// generation: Avro").
package avro
