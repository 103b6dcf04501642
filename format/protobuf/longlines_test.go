package protobuf

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"
	"unicode/utf8"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/reporter"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/testing/protocmp"
)

// sourcePos is the line and column protocompile gives a byte offset: tabs
// to the next multiple of 8, one column per rune.
func sourcePos(data string, off int) (int, int) {
	line := 1 + strings.Count(data[:off], "\n")
	start := strings.LastIndexByte(data[:off], '\n') + 1
	col := 0
	for i := start; i < off; i++ {
		if data[i] == '\t' {
			col += 8 - col%8
		} else if utf8.RuneStart(data[i]) {
			col++
		}
	}
	return line, col + 1
}

// oneLineEnum is an enum of n values on one line, with tabs, multibyte
// text, escapes and comments in the way of the wrapping.
func oneLineEnum(n int) string {
	var b strings.Builder
	b.WriteString("syntax = \"proto2\";\npackage t;\nmessage M { optional string s = 1 [default = \"a;\\\" b{ // not a comment\"]; optional E e = 2; }\n")
	b.WriteString("enum E {\t")
	for i := range n {
		switch i % 7 {
		case 3:
			fmt.Fprintf(&b, "V_%d = %d; /* é; { */\t", i, i)
		case 5:
			fmt.Fprintf(&b, "V_%d=%d [deprecated=true];", i, i)
		default:
			fmt.Fprintf(&b, "V_%d = %d; ", i, i)
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// A file with a 20000-value enum on one line (about 280 KB) took 12 s to
// lint: protocompile's columns cost quadratic time in a line's length.
// Long lines reach it wrapped, and every position maps back exactly.
func TestLongLinePositions(t *testing.T) {
	src := oneLineEnum(20000)
	start := time.Now()
	s, err := Load(fstest.MapFS{"a.proto": {Data: []byte(src)}}, "a.proto", "")
	if err != nil {
		t.Fatal(err)
	}
	// A generous bound against the quadratic blow-up: 12 s before, and
	// nearly two minutes on a loaded 2-core machine (about 1 s of CPU
	// now).
	if d := time.Since(start); d > 40*time.Second {
		t.Errorf("loading took %v", d)
	}
	t.Logf("loaded %d bytes in %v", len(src), time.Since(start))
	vals := s.Desc.Enums().ByName("E").Values()
	if vals.Len() != 20000 {
		t.Fatalf("%d values", vals.Len())
	}
	// Every 97th value (the expected positions cost a scan each) and
	// the last.
	for i := 0; i < vals.Len(); i += 97 {
		if i+97 >= vals.Len() {
			i = vals.Len() - 1
		}
		v := vals.Get(i)
		off := strings.Index(src, fmt.Sprintf("V_%d ", i))
		if off < 0 {
			off = strings.Index(src, fmt.Sprintf("V_%d=", i))
		}
		line, col := sourcePos(src, off)
		if got, want := Location(v), fmt.Sprintf("a.proto:%d:%d", line, col); got != want {
			t.Fatalf("%s at %s, want %s", v.Name(), got, want)
		}
	}
	if got := s.Message.Fields().ByName("s").Default().String(); got != "a;\" b{ // not a comment" {
		t.Errorf("the string default changed: %q", got)
	}
	// An error on a long line names the file's line and column.
	bad := strings.Replace(src, "V_19000 = 19000;", "V_19000 = @;", 1)
	_, err = Load(fstest.MapFS{"a.proto": {Data: []byte(bad)}}, "a.proto", "")
	line, col := sourcePos(bad, strings.Index(bad, "@"))
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("a.proto:%d:%d:", line, col)) {
		t.Errorf("error %v, want it at %d:%d", err, line, col)
	}
}

// FuzzWrapLongLines: a file compiles to the same descriptors, or fails,
// whether its long lines reach the compiler wrapped (as Load gives them)
// or as written.
func FuzzWrapLongLines(f *testing.F) {
	f.Add(oneLineEnum(300))
	f.Add("syntax = \"proto3\";\npackage t;\nmessage M { " + strings.Repeat("string a_x = 1 [json_name = \"a;b\"]; ", 1) + strings.Repeat("/* ; */ ", 700) + "}\n")
	f.Add("syntax = \"proto3\";\npackage t;\nmessage M { map<string, int32> m = 1; " + strings.Repeat("reserved 2 to 3, 4;\t", 300) + " }\n")
	f.Add("syntax = \"proto3\";\npackage t;\n" + strings.Repeat("message M{int32 a=1;}", 300) + "\n")
	f.Add("syntax = \"proto3\";\npackage t;\nmessage M {" + strings.Repeat(" int32 a = 1; // x\n", 2) + strings.Repeat("reserved 2; /* r */ ", 300) + "}\r\n")
	f.Fuzz(func(t *testing.T, src string) {
		wrapped, err := Load(fstest.MapFS{"a.proto": {Data: []byte(src)}}, "a.proto", "")
		comp := protocompile.Compiler{
			Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{Accessor: func(name string) (io.ReadCloser, error) {
				if name != "a.proto" {
					return nil, fs.ErrNotExist
				}
				return io.NopCloser(strings.NewReader(src)), nil
			}}),
			Reporter:       reporter.NewReporter(func(reporter.ErrorWithPos) error { return nil }, nil),
			SourceInfoMode: protocompile.SourceInfoStandard,
		}
		files, perr := comp.Compile(context.Background(), "a.proto")
		if perr != nil {
			if err == nil {
				t.Fatalf("compiles only wrapped: %v", perr)
			}
			return
		}
		if err != nil {
			if es, ok := err.(Errors); ok && len(es) > 0 && strings.Contains(es[0].Message, "reserved for") {
				return // evtool's own refusal (google.protobuf), not the compiler's
			}
			if _, ok := err.(*Error); ok {
				return // no message to select
			}
			t.Fatalf("compiles only as written: %v", err)
		}
		got := protodesc.ToFileDescriptorProto(wrapped.Desc)
		want := protodesc.ToFileDescriptorProto(files[0])
		// Source locations too: spans and the comments attached to them
		// (cmp: custom options' extension types differ between compiles).
		if d := cmp.Diff(want, got, protocmp.Transform()); d != "" {
			t.Fatalf("descriptors differ (-as written +wrapped):\n%.3000s", d)
		}
	})
}

// compileAsWritten compiles src (one file, a.proto) without wrapping.
func compileAsWritten(t *testing.T, src string) protoreflect.FileDescriptor {
	t.Helper()
	comp := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{Accessor: func(name string) (io.ReadCloser, error) {
			if name != "a.proto" {
				return nil, fs.ErrNotExist
			}
			return io.NopCloser(strings.NewReader(src)), nil
		}}),
		SourceInfoMode: protocompile.SourceInfoStandard,
	}
	files, err := comp.Compile(context.Background(), "a.proto")
	if err != nil {
		t.Fatal(err)
	}
	// Through the same rebuild as Load (options and features resolved).
	fd, err := rebuild(files[0], &protoregistry.Files{}, map[string]*wrapped{})
	if err != nil {
		t.Fatal(err)
	}
	return fd
}

// Comments on a long line stay attached where the compiler attaches them
// as written (docsite prints leading comments as documentation), and
// every source span is the one of the file as written.
func TestLongLineComments(t *testing.T) {
	var b strings.Builder
	b.WriteString("syntax = \"proto3\";\npackage t;\nmessage M {")
	for i := range 400 {
		fmt.Fprintf(&b, " int32 f_%d = %d; /* about f_%d */", i, i+1, i)
	}
	b.WriteString(" }\r\n")
	src := b.String()
	s, err := Load(fstest.MapFS{"a.proto": {Data: []byte(src)}}, "a.proto", "")
	if err != nil {
		t.Fatal(err)
	}
	got := protodesc.ToFileDescriptorProto(s.Desc).GetSourceCodeInfo()
	want := protodesc.ToFileDescriptorProto(compileAsWritten(t, src)).GetSourceCodeInfo()
	if len(got.Location) != len(want.Location) {
		t.Fatalf("%d source locations, want %d", len(got.Location), len(want.Location))
	}
	for i := range want.Location {
		if !proto.Equal(got.Location[i], want.Location[i]) {
			t.Fatalf("location %d:\n got %v\nwant %v", i, got.Location[i], want.Location[i])
		}
	}
}

// Long lines of every kind compile, wrapped, to what they compile to as
// written: descriptors, spans and comments.
func TestLongLineMatchesAsWritten(t *testing.T) {
	// rep repeats format (with the repetition's number) past 5000 bytes.
	rep := func(format string) string {
		var b strings.Builder
		for i := 0; b.Len() < 5000; i++ {
			fmt.Fprintf(&b, format, i+9000)
		}
		return b.String()
	}
	head := "syntax = \"proto2\";\npackage t;\nimport \"google/protobuf/descriptor.proto\";\n" +
		"message Opt { optional int32 a = 1; optional string b = 2; repeated Opt c = 3; }\n" +
		"extend google.protobuf.FieldOptions { optional Opt opt = 50000; }\n"
	field := func(i int, end string) string {
		return fmt.Sprintf("optional string f_%d = %d [(opt) = { a: %d b: \"x;y\\\" { // \" c { a: 1 } c: [{ b: '\u00e9\\x41' }] }, default = \"\\t\\\\\"];\t/* \u00e9 %d */%s", i, i+1, i, i, end)
	}
	var line, lines strings.Builder
	for i := range 200 {
		line.WriteString(field(i, " "))
		lines.WriteString(field(i, " // \u00e9\r\n"))
	}
	for _, tc := range []struct{ name, src string }{
		{"aggregate options on one line", head + "message M { " + line.String() + "}\n"},
		{"aggregate options, CRLF", head + "message M {\r\n" + lines.String() + rep("reserved %d; /* \u00e9\t*/ ") + "}\r\n"},
		{"block comment across wrap points", head + "message M { optional int32 a = 1; /*" + rep(" a; b { c = %d") + "*/ optional int32 b = 2; " + rep("reserved %d; ") + "}\n"},
		{"line comment after a long line", head + "enum E { V = 0; " + rep("V_%[1]d = %[1]d; ") + "} // end\n"},
		{"adjacent strings", head + "message M { optional string s = 1 [default = " + rep("\"a\\\"%d\" ") + "]; }\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := protodesc.ToFileDescriptorProto(compileAsWritten(t, tc.src))
			s, err := Load(fstest.MapFS{"a.proto": {Data: []byte(tc.src)}}, "a.proto", "")
			if err != nil {
				t.Fatal(err)
			}
			// cmp, not proto.Equal: the custom options' extension types
			// differ between two compiles of the same text.
			if d := cmp.Diff(want, protodesc.ToFileDescriptorProto(s.Desc), protocmp.Transform()); d != "" {
				t.Fatalf("wrapped compile differs (-as written +wrapped):\n%.3000s", d)
			}
		})
	}
}
