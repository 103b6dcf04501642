package codegen

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/evtool/evtool/bench/codegen/events"
	"github.com/evtool/evtool/bench/codegen/plain"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// The benchmark bodies live here, not in a _test.go file, so that run.sh
// can run them in the same `go test -bench` invocation as go-jsonschema's
// generated code.

// cpuTime is this process's user+system CPU time: unlike wall time, it
// does not grow when other processes take the CPUs (the machines these run
// on are shared).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Loop runs op b.N times and reports, besides ns/op, the process CPU time
// per op as cpu-ns/op (garbage collection included).
func Loop(b *testing.B, doc []byte, op func() error) {
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	runtime.GC()
	cpu0 := cpuTime()
	for b.Loop() {
		if err := op(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// Dir is this package's directory.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}

// Payload returns the benchmark document (about 1.5 KB).
func Payload(tb testing.TB) []byte {
	doc, err := os.ReadFile(filepath.Join(Dir(), "testdata", "checkout.json"))
	if err != nil {
		tb.Fatal(err)
	}
	return bytes.TrimSpace(doc)
}

// Compiled returns the schema compiled as generated code checks it: with
// format assertions.
func Compiled(tb testing.TB) *jsonschema.Schema {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	sch, err := c.Compile(filepath.Join(Dir(), "catalog", "schemas", "com.example.checkout.completed", "v1.json"))
	if err != nil {
		tb.Fatal(err)
	}
	return sch
}

// Generated is (1): the generated decode+validate, called as Decode calls
// it.
func Generated(b *testing.B) {
	doc := Payload(b)
	Loop(b, doc, func() error {
		var v events.CheckoutCompletedV1
		return v.UnmarshalJSON(doc)
	})
}

// GeneratedViaJSONUnmarshal is (1) through json.Unmarshal, which scans
// the input twice more before it calls UnmarshalJSON.
func GeneratedViaJSONUnmarshal(b *testing.B) {
	doc := Payload(b)
	Loop(b, doc, func() error {
		var v events.CheckoutCompletedV1
		return json.Unmarshal(doc, &v)
	})
}

// EncodingJSON is (2): plain encoding/json into the same structs, no
// validation.
func EncodingJSON(b *testing.B) {
	doc := Payload(b)
	Loop(b, doc, func() error {
		var v plain.CheckoutCompletedV1
		return json.Unmarshal(doc, &v)
	})
}

// SanthoshThenEncodingJSON is (3): santhosh-tekuri/jsonschema v6
// validation, then encoding/json.
func SanthoshThenEncodingJSON(b *testing.B) {
	doc := Payload(b)
	sch := Compiled(b)
	Loop(b, doc, func() error {
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
		if err != nil {
			return err
		}
		if err := sch.Validate(inst); err != nil {
			return err
		}
		var v plain.CheckoutCompletedV1
		return json.Unmarshal(doc, &v)
	})
}
