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
// in a field nobody reads reaches nobody too.
func TestAnnotate(t *testing.T) {
	const (
		jsonV1 = `{"type":"object","properties":{"id":{"type":"string"},"note":{"type":"string","maxLength":20}}}`
		jsonV2 = `{"type":"object","properties":{"id":{"type":"string"},"note":{"type":"string","maxLength":10}}}`
		avroV1 = `{"type":"record","name":"R","fields":[{"name":"id","type":"string"},{"name":"note","type":"string"}]}`
		avroV2 = `{"type":"record","name":"R","fields":[{"name":"id","type":"string"},{"name":"note","type":"int"}]}`
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
		out := Annotate(res.Findings, k, cs, cat.Config.Consumers == catalog.ConsumersComplete)
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
