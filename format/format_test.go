package format

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
)

func TestKindOf(t *testing.T) {
	for _, tt := range []struct {
		name string
		kind Kind
		ok   bool
	}{
		{"v1.json", JSONSchema, true},
		{"dir/v2.avsc", Avro, true},
		{"v3.proto", Protobuf, true},
		{"v1.AVSC", "", false},
		{"v1.yaml", "", false},
		{"v1", "", false},
	} {
		k, ok := KindOf(tt.name)
		if k != tt.kind || ok != tt.ok {
			t.Errorf("KindOf(%q) = %q, %v; want %q, %v", tt.name, k, ok, tt.kind, tt.ok)
		}
		if ok && !strings.HasSuffix(tt.name, k.Ext()) {
			t.Errorf("%s: Ext %s", tt.name, k.Ext())
		}
	}
	if got := fmt.Sprintln(Avro.Name(), Protobuf.SchemaType(), JSONSchema.SchemaType()); got != "Avro PROTOBUF JSON\n" {
		t.Errorf("names = %s", got)
	}
}

func TestErrorText(t *testing.T) {
	for _, tt := range []struct {
		err  Error
		want string
	}{
		{Error{File: "a.avsc", Line: 3, Column: 7, Pointer: "/fields/0", Message: "bad"}, "a.avsc:3: /fields/0: bad"},
		{Error{File: "a.proto", Line: 3, Column: 7, Message: "bad"}, "a.proto:3:7: bad"},
		{Error{File: "a.proto", Message: "bad"}, "a.proto: bad"},
		{Error{Pointer: "/n", Message: "bad"}, "/n: bad"},
	} {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.err, got, tt.want)
		}
	}
}

func TestFindings(t *testing.T) {
	up := func(s string) string { return "cat/" + s }
	tests := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{Errors{{File: "a", Line: 1, Message: "x"}, {File: "b", Line: 2, Column: 3, Message: "y"}}, "r cat/a:1 x|r cat/b:2:3 y|"},
		{fmt.Errorf("wrapped: %w", &Error{File: "c", Line: 4, Pointer: "/p", Message: "z"}), "r cat/c:4 z|"},
		{errors.New("plain"), "r  plain|"},
	}
	for _, tt := range tests {
		var b strings.Builder
		for _, f := range Findings(tt.err, "r", up) {
			b.WriteString(f.Rule + " " + f.Location() + " " + f.Message + "|")
		}
		if b.String() != tt.want {
			t.Errorf("Findings(%v) = %q, want %q", tt.err, b.String(), tt.want)
		}
	}
}

func TestFrame(t *testing.T) {
	b := Frame(0x01020304, []byte("x"))
	if string(b) != "\x00\x01\x02\x03\x04x" {
		t.Fatalf("frame = %q", b)
	}
	id, rest, err := Unframe(b)
	if err != nil || id != 0x01020304 || string(rest) != "x" {
		t.Fatalf("unframe = %d %q %v", id, rest, err)
	}
	for _, bad := range []string{"", "\x00\x01", "\x01\x00\x00\x00\x01"} {
		if _, _, err := Unframe([]byte(bad)); err == nil {
			t.Errorf("Unframe(%q) accepted", bad)
		}
	}
}

func TestReadFile(t *testing.T) {
	fsys := fstest.MapFS{
		"a.avsc":   {Data: []byte("12345")},
		"dir/x":    {Data: nil},
		"pipe":     {Mode: fs.ModeNamedPipe},
		"big.avsc": {Data: make([]byte, 11)},
	}
	for _, tt := range []struct{ name, want string }{
		{"a.avsc", ""},
		{"dir", "is a directory"},
		{"pipe", "a named pipe"},
		{"big.avsc", "larger than 10 bytes"},
		{"missing", "not exist"},
	} {
		_, err := ReadFile(fsys, tt.name, 10)
		if (tt.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ReadFile(%s) = %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestIsJSON(t *testing.T) {
	for ct, want := range map[string]bool{
		"": true, "application/json": true, "application/cloudevents+json; charset=utf-8": true, "Application/JSON": true,
		"application/avro": false, "text/plain": false, "application/json;;": false,
	} {
		if IsJSON(ct) != want {
			t.Errorf("IsJSON(%q) = %v", ct, !want)
		}
	}
}

func TestVersionFile(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
		kind Kind
		ok   bool
	}{
		{"v1.json", 1, JSONSchema, true},
		{"v12.avsc", 12, Avro, true},
		{"v3.proto", 3, Protobuf, true},
		{"v999999999.json", 999999999, JSONSchema, true},
		{"v1000000000.json", 0, "", false}, // ten digits
		{"v01.json", 0, "", false},
		{"v0.json", 0, "", false},
		{"V1.json", 0, "", false},
		{"v.json", 0, "", false},
		{"v1.JSON", 0, "", false},
		{"v1.yaml", 0, "", false},
		{"v1a.json", 0, "", false},
		{"v-1.json", 0, "", false},
		{"x1.json", 0, "", false},
		{"v1.json.bak", 0, "", false},
	} {
		n, k, ok := VersionFile(tc.name)
		if n != tc.n || k != tc.kind || ok != tc.ok {
			t.Errorf("VersionFile(%q) = %d, %q, %v; want %d, %q, %v", tc.name, n, k, ok, tc.n, tc.kind, tc.ok)
		}
	}
}
