package consumers

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/compat"
	"github.com/evtool/evtool/report"
)

// The gate's step: a break no consumer reads is softened only under
// consumers: complete; Avro is projected like JSON Schema, so its break
// in a field nobody reads (a value read with another meaning) reaches
// nobody too.
func TestAnnotate(t *testing.T) {
	const (
		jsonV1 = `{"type":"object","properties":{"id":{"type":"string"},"note":{"type":"string","maxLength":20}}}`
		jsonV2 = `{"type":"object","properties":{"id":{"type":"string"},"note":{"type":"string","maxLength":10}}}`
		avroV1 = `{"type":"record","name":"R","fields":[{"name":"id","type":"string"},{"name":"note","type":{"type":"long","logicalType":"timestamp-millis"}}]}`
		avroV2 = `{"type":"record","name":"R","fields":[{"name":"id","type":"string"},{"name":"note","type":{"type":"long","logicalType":"timestamp-micros"}}]}`
		reader = "reads:\n  com.example.j:\n    versions: [1, 2]\n    fields: [/id]\n  com.example.a:\n    versions: [1, 2]\n    fields: [/id]\n"
	)
	for _, complete := range []bool{false, true} {
		cfg := "version: 1\ncompat:\n  mode: BACKWARD\n"
		if complete {
			cfg += "consumers: complete\n"
		}
		fsys := fstest.MapFS{
			"evtool.yaml":                   {Data: []byte(cfg)},
			"schemas/com.example.j/v1.json": {Data: []byte(jsonV1)},
			"schemas/com.example.j/v2.json": {Data: []byte(jsonV2)},
			"schemas/com.example.a/v1.avsc": {Data: []byte(avroV1)},
			"schemas/com.example.a/v2.avsc": {Data: []byte(avroV2)},
			"consumers/billing.yaml":        {Data: []byte(reader)},
		}
		out := annotated(t, fsys)
		var sawJSON, sawAvro bool
		for _, f := range out {
			if f.Rule == RuleAffected || f.Severity == report.SeverityInfo || f.Type == "" {
				continue
			}
			sawJSON = sawJSON || f.Type == "com.example.j"
			sawAvro = sawAvro || f.Type == "com.example.a"
			want := report.SeverityError
			if complete {
				want = report.SeverityWarning
			}
			if f.Severity != want || len(f.Consumers) != 0 || !strings.Contains(f.Message, "no consumer") {
				t.Errorf("complete=%v: %s finding %s %v %q", complete, f.Type, f.Severity, f.Consumers, f.Message)
			}
		}
		if !sawJSON || !sawAvro {
			t.Fatalf("complete=%v: the planted breaks were not found: %v", complete, out)
		}
	}
}

// A break in a field no consumer reads, whose reader fails to decode the
// event, reaches every consumer that decodes with the reader version: an
// Avro or Protobuf decoder rejects the whole event, whatever fields its
// code reads. It is never softened under consumers: complete.
func TestAnnotateDecodeFailure(t *testing.T) {
	for _, tc := range []struct {
		name, ext, v1, v2 string
	}{
		{"avro field added without default", "avsc",
			`{"type":"record","name":"R","fields":[{"name":"id","type":"string"}]}`,
			`{"type":"record","name":"R","fields":[{"name":"id","type":"string"},{"name":"note","type":"string"}]}`},
		{"avro type changed", "avsc",
			`{"type":"record","name":"R","fields":[{"name":"id","type":"string"},{"name":"note","type":"string"}]}`,
			`{"type":"record","name":"R","fields":[{"name":"id","type":"string"},{"name":"note","type":"int"}]}`},
		{"protobuf bytes became string", "proto",
			"syntax = \"proto3\";\npackage ex;\nmessage R {\n  string id = 1;\n  bytes note = 2;\n}\n",
			"syntax = \"proto3\";\npackage ex;\nmessage R {\n  string id = 1;\n  string note = 2;\n}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{
				"evtool.yaml":                        {Data: []byte("version: 1\ncompat:\n  mode: BACKWARD\nconsumers: complete\n")},
				"schemas/com.example.a/v1." + tc.ext: {Data: []byte(tc.v1)},
				"schemas/com.example.a/v2." + tc.ext: {Data: []byte(tc.v2)},
				"consumers/billing.yaml":             {Data: []byte("reads:\n  com.example.a:\n    versions: [2]\n    fields: [/id]\n")},
			}
			out := annotated(t, fsys)
			var errs int
			for _, f := range out {
				if f.Type == "" || f.Rule == RuleAffected {
					continue
				}
				if f.Severity == report.SeverityError {
					errs++
					if len(f.Consumers) != 1 || f.Consumers[0] != "billing" {
						t.Errorf("error %s names %v, want billing: %s", f.Rule, f.Consumers, f.Message)
					}
				}
			}
			if errs == 0 {
				t.Fatalf("the decode failure was softened or not found: %v", out)
			}
		})
	}
}

// annotated is the gate's findings on the catalog in fsys, annotated with
// its contracts (which must lint clean).
func annotated(t *testing.T, fsys fstest.MapFS) []report.Finding {
	t.Helper()
	cat, err := catalog.LoadFS(fsys, "")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := LoadFS(fsys, "")
	if err != nil {
		t.Fatal(err)
	}
	if probs := Lint(cat, cs); len(probs) > 0 {
		t.Fatal(probs)
	}
	res := compat.CheckCatalog(cat, nil, compat.CheckOptions{Seed: 1})
	k := NewChecker(cat, Options{Samples: 2, Seed: 1})
	return Annotate(res.Findings, k, cs, cat.Config.Consumers == catalog.ConsumersComplete)
}

// TestDecodeFailsWithoutWitness: a projected Avro/Protobuf comparison
// keeps the whole pair's errors whose reader fails; an error whose
// counterexample the engine could not afford may be one, so it is kept.
func TestDecodeFailsWithoutWitness(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    report.Finding
		want bool
	}{
		{"reader error", report.Finding{Severity: report.SeverityError, Counterexample: []byte(`{"readerError":"missing field"}`)}, true},
		{"read differently", report.Finding{Severity: report.SeverityError, Counterexample: []byte(`{"writer":1,"reader":10}`)}, false},
		{"no witness", report.Finding{Severity: report.SeverityError}, true},
		{"warning", report.Finding{Severity: report.SeverityWarning}, false},
	} {
		if got := decodeFails(tc.f); got != tc.want {
			t.Errorf("%s: decodeFails = %v, want %v", tc.name, got, tc.want)
		}
	}
}
