package protobuf

import (
	"github.com/evtool/evtool/internal/fuzzcost"
	"testing"
	"testing/fstest"
)

// FuzzLoad: any .proto text either compiles or is refused with errors
// that name the file; never a panic.
func FuzzLoad(f *testing.F) {
	f.Add("syntax = \"proto3\";\nmessage M { int32 a = 1; map<string, M> m = 2; oneof o { string s = 3; } }\n", "")
	f.Add("syntax = \"proto2\";\nmessage M { required int32 a = 1; optional group G = 2 { optional int32 b = 3; } }\n", "M")
	f.Add("edition = \"2023\";\nimport \"google/protobuf/any.proto\";\nmessage M { google.protobuf.Any a = 1; }\n", "")
	f.Add("syntax = \"proto3\";\nimport \"../x.proto\";\nmessage M {}\n", "")
	f.Fuzz(func(t *testing.T, src, message string) {
		fuzzcost.Default().Check(t, len(src)+len(message), func() {
			s, err := Load(fstest.MapFS{"a.proto": {Data: []byte(src)}, "b.proto": {Data: []byte("syntax = \"proto3\";\nmessage B {}\n")}}, "a.proto", message)
			if err != nil {
				if es, ok := err.(Errors); ok && len(es) == 0 {
					t.Fatal("empty Errors")
				}
				return
			}
			_ = s.Canonical()
			for _, m := range (Sampler{}).Samples(s.Message, 3) {
				if _, err := EncodeBinary(m); err != nil {
					return // a required field the sampler could not reach
				}
			}
		})
	})
}

// FuzzDecode: bytes (binary, framed or JSON) are accepted or refused,
// never a panic; what is accepted re-encodes and decodes to the same.
func FuzzDecode(f *testing.F) {
	s, err := Load(rootFS(f).FS(), "orders.proto", "")
	if err != nil {
		f.Fatal(err)
	}
	for _, m := range (Sampler{Seed: 3}).Samples(s.Message, 4) {
		b, _ := EncodeBinary(m)
		f.Add(b)
		fr, _ := s.EncodeFramed(1, m)
		f.Add(fr)
		j, _ := EncodeJSON(m)
		f.Add(j)
	}
	f.Add([]byte{0, 0, 0, 0, 1, 0x7f, 0xff})
	// confluent-kafka-python 1.7's unsigned message indexes, for Line ([1]).
	f.Add([]byte{0, 0, 0, 0, 1, 1, 1, 0x0a, 0x01, 'x'})
	line, err := Load(rootFS(f).FS(), "orders.proto", "Line")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzcost.Default().Check(t, len(b), func() {
			for _, ct := range []string{"application/protobuf", "application/json"} {
				_ = s.Validate(b, ct)
			}
			_, _, _ = line.DecodeFramed(b)
			m, err := s.DecodeBinary(b)
			if err != nil {
				return
			}
			again, err := EncodeBinary(m)
			if err != nil {
				t.Fatalf("decoded message does not encode: %v", err)
			}
			if _, err := s.DecodeBinary(again); err != nil {
				t.Fatalf("re-encoded message does not decode: %v", err)
			}
		})
	})
}
