package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/report"
	"github.com/evtool/evtool/verify"
)

// hostile is text from outside that tries every way out of a report: line
// breaks that start GitHub Actions and Azure commands, a terminal escape, a
// bidi override and bytes that are not UTF-8.
const hostile = "k\n::error file=x.go,line=1::pwned\n##[group]g\x1b[31m\u202e\xff\xfe"

// hostileJSON is hostile as a JSON string (its invalid bytes as \ufffd, so
// that the schema files stay valid JSON).
var hostileJSON = func() string {
	b, _ := json.Marshal(hostile)
	return string(b)
}()

// protoHostile is hostile in a Protobuf string literal.
const protoHostile = `k\n::error file=x.go,line=1::pwned\n##[group]g\x1b[31m\342\200\256\377\376`

// hostileCatalog holds a JSON Schema type whose property names, enum
// values and descriptions are hostile, a v2 that breaks them, an Avro type
// with a hostile doc and default, a Protobuf type with a hostile default, and, for
// the malformed catalog only (remove them for the others), a Protobuf file
// with raw hostile bytes and a type directory with a hostile name.
func hostileCatalog(t *testing.T, dir string) {
	t.Helper()
	v1 := `{"type":"object","description":` + hostileJSON + `,"properties":{` + hostileJSON + `:{"type":"string","enum":[` + hostileJSON + `,"b"]}},"required":[` + hostileJSON + `]}`
	v2 := `{"type":"object","description":` + hostileJSON + `,"properties":{` + hostileJSON + `:{"type":"string","enum":["b"]}},"required":[` + hostileJSON + `]}`
	files := map[string]string{
		"evtool.yaml":                     "version: 1\n",
		"schemas/com.x.h/v1.json":         v1,
		"schemas/com.x.h/v2.json":         v2,
		"schemas/com.x.h/event.yaml":      "topic: h\n",
		"schemas/com.x.av/v1.avsc":        `{"type":"record","name":"R","doc":` + hostileJSON + `,"fields":[{"name":"a","type":"string","default":` + hostileJSON + `}]}`,
		"schemas/com.x.av/v2.avsc":        `{"type":"record","name":"R","doc":` + hostileJSON + `,"fields":[{"name":"a","type":"int","default":1}]}`,
		"schemas/com.x.pb/v1.proto":       "syntax = \"proto2\";\nmessage M {\n  optional string s = 1 [default = \"" + protoHostile + "\"];\n}\n",
		"schemas/com.x.pb/v2.proto":       "syntax = \"proto2\";\nmessage M {\n  optional int64 s = 1;\n}\n",
		"schemas/z.pbraw/v1.proto":        "syntax = \"proto3\";\n// " + hostile + "\nmessage M {\n  string s = 1 [json_name = \"" + hostile + "\"];\n}\n",
		"schemas/" + hostile + "/v1.json": `{"type":"object"}`,
	}
	writeFiles(t, dir, files)
}

// writeFiles writes files (slash paths to contents) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// malformedOnly removes from a hostile catalog what makes it malformed.
func malformedOnly(t *testing.T, dir string) {
	t.Helper()
	for _, d := range []string{hostile, "z.pbraw"} {
		if err := os.RemoveAll(filepath.Join(dir, "schemas", d)); err != nil {
			t.Fatal(err)
		}
	}
}

// hostileRecords are records whose key, headers, ids, types, sources and
// values are hostile, in binary mode and as dead letters of evtool's
// convention.
func hostileRecords() []*kgo.Record {
	h := func(k, v string) kgo.RecordHeader { return kgo.RecordHeader{Key: k, Value: []byte(v)} }
	data := `{` + hostileJSON + `:` + hostileJSON + `}`
	return []*kgo.Record{
		{Key: []byte(hostile), Value: []byte(data), Headers: []kgo.RecordHeader{
			h("ce_specversion", "1.0"), h("ce_id", hostile), h("ce_source", hostile),
			h("ce_type", "com.x.h"), h("ce_dataschema", hostile), h("content-type", "application/json"),
			h(hostile, hostile)}},
		{Key: []byte(hostile), Value: []byte(hostile), Headers: []kgo.RecordHeader{
			h("ce_specversion", "1.0"), h("ce_id", hostile), h("ce_source", hostile), h("ce_type", hostile),
			h("content-type", hostile)}},
		{Key: []byte(hostile), Value: []byte(data), Headers: []kgo.RecordHeader{
			h("ce_specversion", "1.0"), h("ce_id", hostile), h("ce_source", hostile), h("ce_type", "com.x.h"),
			h("dlq.source.topic", hostile), h("dlq.source.partition", "0"), h("dlq.source.offset", "1"),
			h("dlq.error.kind", hostile), h("dlq.error", hostile), h(hostile, hostile)}},
	}
}

// TestOutputHostile feeds hostile keys, ids, headers, types, sources,
// values and schema text through every output format of every command
// that prints bytes from outside, and checks what a terminal or a CI log
// would show: no raw control byte, no line a CI log takes for a command,
// no bidi control, no invalid UTF-8; and well-formed JSON, JUnit and
// SARIF documents.
func TestOutputHostile(t *testing.T) {
	dir := t.TempDir()
	cat := filepath.Join(dir, "cat")
	hostileCatalog(t, cat)
	// A catalog without the hostile directory, for the commands that stop
	// at a malformed catalog, served as the registry diff compares with.
	clean := filepath.Join(dir, "clean")
	hostileCatalog(t, clean)
	malformedOnly(t, clean)
	other := filepath.Join(dir, "other")
	hostileCatalog(t, other)
	malformedOnly(t, other)
	if err := os.WriteFile(filepath.Join(other, "schemas/com.x.h/v1.json"), []byte(`{"type":"object","description":`+hostileJSON+`,"properties":{`+hostileJSON+`:{"type":"string","enum":[`+hostileJSON+`,"c"]}},"required":[`+hostileJSON+`]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// Files whose names are hostile, for compat diff to name.
	hostileFile := func(src, ext string) string {
		name := filepath.Join(dir, strings.ReplaceAll(hostile, "/", "_")+ext)
		data, err := os.ReadFile(filepath.Join(cat, "schemas", src))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return name
	}
	avroV2, protoV2 := hostileFile("com.x.av/v2.avsc", ".avsc"), hostileFile("com.x.pb/v2.proto", ".proto")
	events := filepath.Join(dir, "events.jsonl")
	ev := func(typ, data string) string {
		return `{"specversion":"1.0","id":` + hostileJSON + `,"source":` + hostileJSON + `,"type":` + typ + `,"subject":` + hostileJSON + `,"datacontenttype":"application/json","data":` + data + "}\n"
	}
	lines := ev(`"com.x.h"`, `{`+hostileJSON+`:"c"}`) + ev(hostileJSON, `{}`) + ev(`"com.x.h"`, `{"x":`+hostileJSON+`}`) + hostile + "\n"
	if err := os.WriteFile(events, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	brokers := startBrokerWith(t, "h", 1, hostileRecords()...)
	dlqBrokers := startBrokerWith(t, "h.dlq", 1, hostileRecords()...)
	registryURL := serveCatalog(t, other)
	replayScenario := filepath.Join(dir, "replay.yaml")
	if err := os.WriteFile(replayScenario, []byte("catalog: "+clean+"\nconsumer:\n  run: [\""+strings.ReplaceAll(hostileJSON[1:len(hostileJSON)-1], `\u`, `\\u`)+"\"]\n"+hostileJSON+": 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	verifyScenario := filepath.Join(dir, "verify.yaml")
	if err := os.WriteFile(verifyScenario, []byte("catalog: "+clean+"\nproducer: {run: [x]}\nworkload: {command: [x]}\n"+hostileJSON+": 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	gate := []string{"text", "json", "github", "junit", "markdown", "sarif"}
	basic := []string{"text", "json"}
	for _, tc := range []struct {
		name    string
		args    []string
		formats []string
	}{
		{"compat diff json", []string{"compat", "diff", filepath.Join(cat, "schemas/com.x.h/v1.json"), filepath.Join(cat, "schemas/com.x.h/v2.json")}, gate},
		{"compat diff avro", []string{"compat", "diff", filepath.Join(cat, "schemas/com.x.av/v1.avsc"), avroV2}, gate},
		{"compat diff proto", []string{"compat", "diff", filepath.Join(cat, "schemas/com.x.pb/v1.proto"), protoV2}, gate},
		{"compat check", []string{"compat", "check", "--dir", clean}, gate},
		{"compat check malformed", []string{"compat", "check", "--dir", cat}, gate},
		{"lint", []string{"lint", "--dir", cat}, basic},
		{"validate", []string{"validate", "--dir", clean, events}, basic},
		{"validate --topic", []string{"validate", "--dir", clean, "--brokers", brokers, "--topic", "h", "--until", "end"}, basic},
		{"dlq inspect", []string{"dlq", "inspect", "--dir", clean, "--brokers", dlqBrokers, "--topic", "h.dlq"}, basic},
		{"dlq redrive", []string{"dlq", "redrive", "--dir", clean, "--brokers", dlqBrokers, "--topic", "h.dlq"}, basic},
		{"registry diff", []string{"registry", "diff", "--dir", clean, "--url", registryURL}, gate},
		{"replay", []string{"replay", replayScenario}, []string{"text", "json", "junit"}},
		{"verify", []string{"verify", verifyScenario}, []string{"text", "json", "junit"}},
		{"docs", []string{"docs", "--dir", cat, "--out", filepath.Join(dir, "site")}, []string{""}},
		{"export asyncapi", []string{"export", "asyncapi", "--dir", clean}, []string{""}},
		{"registry push", []string{"registry", "push", "--dir", clean, "--url", registryURL, "--dry-run"}, basic},
		{"gen go", []string{"gen", "go", "--dir", cat, "--out", filepath.Join(dir, "gen")}, []string{""}},
	} {
		for _, format := range tc.formats {
			args := tc.args
			if format != "" {
				args = append(append([]string(nil), args...), "--format", format)
			}
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
			name := tc.name + " " + format
			if code == 0 && tc.name != "docs" && tc.name != "compat check" && tc.name != "export asyncapi" {
				t.Errorf("%s: exit 0, want findings or an error quoting the input\n%s%s", name, stdout.String(), stderr.String())
			}
			// "pwned", or in hex where a name cannot be shown as text
			if out := stdout.String() + stderr.String(); !strings.Contains(out, "pwned") && !strings.Contains(out, "70776e6564") {
				t.Errorf("%s: the hostile input is not in the output: the case tests nothing\n%s%s", name, stdout.String(), stderr.String())
			}
			checkOutput(t, name+" stdout", format, stdout.Bytes())
			checkOutput(t, name+" stderr", "text", stderr.Bytes())
		}
	}
}

// TestVerifyReportHostile writes a verify report whose records carry
// hostile keys and ids in each format (a verify run needs a producer that
// writes such records; the report is what prints them).
func TestVerifyReportHostile(t *testing.T) {
	rec := verify.RecordRef{At: report.RecordLocation{Topic: hostile, Partition: 1, Offset: 2}, ID: hostile, Key: hostile}
	run := &verify.RunResult{Name: hostile, Verdict: verify.Verdict{Classes: []verify.Class{{Name: "lost", Count: 1,
		Members: []verify.Member{{Message: hostile, Records: []verify.RecordRef{rec}}}}}},
		Expect: []string{hostile}, Notes: []string{hostile}, Stderr: []string{hostile}}
	rep := &verify.Report{Scenario: hostile, Reproduce: hostile, Clean: run}
	for _, f := range []verify.Format{verify.FormatText, verify.FormatJSON, verify.FormatJUnit} {
		var b bytes.Buffer
		if err := verify.Write(&b, f, rep); err != nil {
			t.Fatal(err)
		}
		checkOutput(t, "verify report "+string(f), string(f), b.Bytes())
	}
}

// githubCommand is an annotation the github format writes: a level, then
// properties whose values escape ':' and ','.
var githubCommand = regexp.MustCompile(`^::(error|warning|notice) [a-z]+=[^,:]*(,[a-z]+=[^,:]*)*::`)

// checkOutput fails t when out would let input act on a terminal or a CI
// log, or when a document format is not well formed.
func checkOutput(t *testing.T, name, format string, out []byte) {
	t.Helper()
	if !utf8.Valid(out) {
		t.Errorf("%s: invalid UTF-8:\n%q", name, out)
	}
	for i, line := range strings.Split(string(out), "\n") {
		rest := strings.TrimLeft(line, " \t")
		if format == "github" && githubCommand.MatchString(line) {
			// the printer's own annotation: its properties hold no raw
			// ':' or ',' (escaped as %3A, %2C), its data no line break
		} else if strings.HasPrefix(rest, "::") || strings.HasPrefix(rest, "##[") || strings.HasPrefix(rest, "##vso[") {
			t.Errorf("%s: line %d reads as a CI command: %q", name, i+1, line)
		}
		for _, r := range line {
			if r < 0x20 && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f || r == '\u2028' || r == '\u2029' ||
				r == '\u061c' || r == '\u200e' || r == '\u200f' || r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069' {
				t.Errorf("%s: line %d holds %U raw: %q", name, i+1, r, line)
				break
			}
		}
	}
	switch format {
	case "json", "sarif":
		dec := json.NewDecoder(bytes.NewReader(out))
		for {
			var v any
			if err := dec.Decode(&v); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Errorf("%s: not JSON: %v\n%s", name, err, out)
				break
			}
		}
	case "junit":
		dec := xml.NewDecoder(bytes.NewReader(out))
		for {
			if _, err := dec.Token(); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Errorf("%s: not XML: %v\n%s", name, err, out)
				break
			}
		}
	}
}

// TestGenHostileOnDisk: gen go --check prints a diff of the files in
// --out, and gen go the names of the files it removes: both are bytes
// from outside (a pull request can edit generated code and add files with
// evtool's header), printed escaped.
func TestGenHostileOnDisk(t *testing.T) {
	dir := t.TempDir()
	cat := filepath.Join(dir, "cat")
	hostileCatalog(t, cat)
	malformedOnly(t, cat)
	out := filepath.Join(dir, "gen")
	gen := func(check bool) (int, string, string) {
		args := []string{"gen", "go", "--dir", cat, "--out", out}
		if check {
			args = append(args, "--check")
		}
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	if code, o, e := gen(false); code != 0 {
		t.Fatalf("gen go: exit %d\n%s%s", code, o, e)
	}
	entries, err := os.ReadDir(out)
	if err != nil || len(entries) == 0 {
		t.Fatalf("gen go wrote nothing: %v", err)
	}
	first := filepath.Join(out, entries[0].Name())
	data, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(first, append(data, "\n"+hostile+"\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, hostile+".go"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, check := range []bool{true, false} {
		code, o, e := gen(check)
		if want := map[bool]int{true: 1, false: 0}[check]; code != want {
			t.Errorf("gen go (check %v): exit %d, want %d\n%s%s", check, code, want, o, e)
		}
		if !strings.Contains(o+e, "pwned") {
			t.Errorf("gen go (check %v): the hostile input is not in the output: the case tests nothing\n%s%s", check, o, e)
		}
		checkOutput(t, fmt.Sprintf("gen go (check %v) stdout", check), "text", []byte(o))
		checkOutput(t, fmt.Sprintf("gen go (check %v) stderr", check), "text", []byte(e))
	}
}
