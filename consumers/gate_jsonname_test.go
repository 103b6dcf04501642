package consumers

import (
	"testing"
	"testing/fstest"

	"github.com/evtool/evtool/report"
)

// A Protobuf break on a field a contract reads by its JSON name (the
// data's JSON form, as contracts are written) reaches that consumer and
// stays an error under consumers: complete. Two fields the writer sets
// together merged into one oneof: the projection on /ibanCode keeps one
// member and sees no break, so only the whole pair's finding (at the
// declared name, /iban_code) shows it; it was softened to a warning.
func TestAnnotateProtobufJSONName(t *testing.T) {
	fsys := fstest.MapFS{
		"evtool.yaml":                    {Data: []byte("version: 1\ncompat:\n  mode: BACKWARD\n  profile: wire\nconsumers: complete\n")},
		"schemas/com.example.p/v1.proto": {Data: []byte("syntax = \"proto3\";\npackage ex;\nmessage Order {\n  string order_id = 1;\n  string iban_code = 7;\n  string card_no = 6;\n}\n")},
		"schemas/com.example.p/v2.proto": {Data: []byte("syntax = \"proto3\";\npackage ex;\nmessage Order {\n  string order_id = 1;\n  oneof pay {\n    string iban_code = 7;\n    string card_no = 6;\n  }\n}\n")},
		"consumers/billing.yaml":         {Data: []byte("reads:\n  com.example.p:\n    versions: [2]\n    fields: [/ibanCode]\n")},
	}
	out := annotated(t, fsys)
	found := false
	for _, f := range out {
		if f.Rule != "proto-oneof-fields-merged" || f.Pointer != "/iban_code" {
			continue
		}
		found = true
		if f.Severity != report.SeverityError || len(f.Consumers) != 1 || f.Consumers[0] != "billing" {
			t.Errorf("%s at %s: %s, consumers %v: %s", f.Rule, f.Pointer, f.Severity, f.Consumers, f.Message)
		}
	}
	if !found {
		t.Fatalf("the planted oneof merge at /iban_code was not found: %v", out)
	}
}
