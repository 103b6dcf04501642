package protobuf

import (
	"bytes"
	"strings"
	"testing"
	"testing/fstest"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

func orders(t testing.TB, message string) *Schema {
	t.Helper()
	s, err := Load(rootFS(t).FS(), "orders.proto", message)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	s := orders(t, "")
	for i, m := range (Sampler{Seed: 1}).Samples(s.Message, 8) {
		bin, err := EncodeBinary(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.DecodeBinary(bin)
		if err != nil || !proto.Equal(got, m) {
			t.Errorf("sample %d: binary round trip: %v", i, err)
		}
		js, err := EncodeJSON(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err = s.DecodeJSON(js)
		if err != nil || !proto.Equal(got, m) {
			t.Errorf("sample %d: JSON round trip: %v\n%s", i, err, js)
		}
		framed, err := s.EncodeFramed(7, m)
		if err != nil {
			t.Fatal(err)
		}
		f, got, err := s.DecodeFramed(framed)
		if err != nil || f.ID != 7 || !proto.Equal(got, m) {
			t.Errorf("sample %d: framed: %v %v", i, f, err)
		}
		for _, ct := range []string{"application/protobuf", "application/x-protobuf; charset=binary"} {
			if err := s.Validate(bin, ct); err != nil {
				t.Errorf("validate %s: %v", ct, err)
			}
			if err := s.Validate(framed, ct); err != nil {
				t.Errorf("validate framed %s: %v", ct, err)
			}
		}
		if err := s.Validate(js, "application/json"); err != nil {
			t.Errorf("validate json: %v", err)
		}
	}
}

func TestFrameMessageIndex(t *testing.T) {
	line := orders(t, "Line")
	if got := MessageIndex(line.Message); len(got) != 1 || got[0] != 1 {
		t.Fatalf("MessageIndex(Line) = %v", got)
	}
	m := line.New()
	m.Set(line.Message.Fields().ByName("sku"), protoreflect.ValueOfString("x"))
	framed, _ := line.EncodeFramed(3, m)
	if !bytes.Equal(framed[:7], []byte{0, 0, 0, 0, 3, 2, 2}) {
		t.Errorf("frame = % x (want magic, id 3, one index 1 as zigzag varints)", framed[:7])
	}
	// The same bytes are not an OrderPlaced: the index names another message.
	if _, _, err := orders(t, "").DecodeFramed(framed); err == nil || !strings.Contains(err.Error(), "names shop.Line") {
		t.Errorf("wrong message index accepted: %v", err)
	}
	first := orders(t, "")
	framed, _ = first.EncodeFramed(3, first.New())
	if !bytes.Equal(framed, []byte{0, 0, 0, 0, 3, 0}) {
		t.Errorf("first message frame = % x (want the 0 shortcut)", framed)
	}
}

func TestValidateRejects(t *testing.T) {
	s := orders(t, "")
	tests := []struct {
		name, ct string
		data     []byte
		want     string
	}{
		{"truncated", "application/protobuf", []byte{0x0a, 0x05, 'a'}, "invalid wire-format"},
		{"bad frame", "application/protobuf", []byte{0, 1}, "not a Confluent-framed record"},
		{"bad index", "application/protobuf", []byte{0, 0, 0, 0, 1, 2, 40}, "no message 20"},
		// 2^40 indexes announced (zigzag varint): refused before allocating.
		{"huge index count", "application/protobuf", []byte{0, 0, 0, 0, 1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40}, "more than 64 indexes"},
		{"index count beyond the record", "application/protobuf", []byte{0, 0, 0, 0, 1, 6, 2}, "the record ends inside it"},
		{"negative index count", "application/protobuf", []byte{0, 0, 0, 0, 1, 1}, "a negative index count"},
		{"malformed varint", "application/protobuf", []byte{0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, "invalid wire-format"},
		// The decoder keeps these as unknown fields; validate does not.
		{"declared field of another wire type", "application/protobuf", []byte{0x08, 0x05}, "field id = 1 is written with wire type varint"},
		{"undeclared field number", "application/protobuf", []byte{0x0a, 0x01, 's', 0x98, 0x06, 0x01}, "field number 99 is not declared in shop.OrderPlaced"},
		{"wrong wire type in a nested message", "application/protobuf", []byte{0x22, 0x05, 0x0d, 0x01, 0x02, 0x03, 0x04}, "lines[0]: field sku = 1 is written with wire type fixed32"},
		{"undeclared field framed", "application/protobuf", []byte{0, 0, 0, 0, 1, 0, 0x98, 0x06, 0x01}, "field number 99"},
		{"unknown json field", "application/json", []byte(`{"nope":1}`), "unknown field"},
		{"json type", "application/json", []byte(`{"id":5}`), "invalid value"},
		{"content type", "text/plain", []byte(`x`), "unsupported content type"},
	}
	for _, tc := range tests {
		if err := s.Validate(tc.data, tc.ct); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestSamplerCoversAndIsDeterministic(t *testing.T) {
	s := orders(t, "")
	a := (Sampler{Seed: 9}).Samples(s.Message, 12)
	b := (Sampler{Seed: 9}).Samples(s.Message, 12)
	for i := range a {
		if !proto.Equal(a[i], b[i]) {
			t.Fatalf("sample %d differs between runs of one seed", i)
		}
	}
	fields := s.Message.Fields()
	branches, statuses, deltas := map[string]bool{}, map[int32]bool{}, map[int64]bool{}
	for _, m := range a {
		if od := m.WhichOneof(s.Message.Oneofs().ByName("payment")); od != nil {
			branches[string(od.Name())] = true
		}
		statuses[int32(m.Get(fields.ByName("status")).Enum())] = true
		deltas[m.Get(fields.ByName("delta")).Int()] = true
	}
	if len(branches) != 2 {
		t.Errorf("oneof branches covered: %v", branches)
	}
	if len(statuses) != 3 {
		t.Errorf("enum values covered: %v", statuses)
	}
	if !deltas[1<<40] || !deltas[-1] {
		t.Errorf("sint64 edge values covered: %v", deltas)
	}
	// Recursion is bounded.
	rec, err := Load(mapFS("syntax = \"proto3\";\nmessage R { R next = 1; repeated R kids = 2; }\n"), "a.proto", "")
	if err != nil {
		t.Fatal(err)
	}
	depth := 0
	for m := protoreflect.Message((Sampler{MaxDepth: 3}).Sample(rec.Message, 1)); m.Has(rec.Message.Fields().Get(0)); m = m.Get(rec.Message.Fields().Get(0)).Message() {
		depth++
	}
	if depth != 3 {
		t.Errorf("recursion depth %d, want 3", depth)
	}
}

// A string field that is not UTF-8 is a parse error exactly where the
// schema validates strings: proto3 and editions (VERIFY by default), not
// proto2 or utf8_validation = NONE. protocompile's own descriptors lose
// the editions feature, so an edition 2023 string went unchecked.
func TestDecodeBinaryUTF8Validation(t *testing.T) {
	tests := []struct {
		name, src string
		wantErr   bool
	}{
		{"proto3", "syntax = \"proto3\";\npackage t;\nmessage M { string a = 1; }", true},
		{"proto2", "syntax = \"proto2\";\npackage t;\nmessage M { optional string a = 1; }", false},
		{"edition 2023", "edition = \"2023\";\npackage t;\nmessage M { string a = 1; }", true},
		{"edition 2023 file NONE", "edition = \"2023\";\npackage t;\noption features.utf8_validation = NONE;\nmessage M { string a = 1; }", false},
		{"edition 2023 field NONE", "edition = \"2023\";\npackage t;\nmessage M { string a = 1 [features.utf8_validation = NONE]; }", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Load(fstest.MapFS{"a.proto": {Data: []byte(tc.src)}}, "a.proto", "")
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.DecodeBinary([]byte{0x0a, 0x02, 0xff, 0xfe})
			if (err != nil) != tc.wantErr {
				t.Errorf("decode error %v, want error %v", err, tc.wantErr)
			}
			if got := UTF8Validated(s.Message.Fields().Get(0)); got != tc.wantErr {
				t.Errorf("UTF8Validated = %v, want %v", got, tc.wantErr)
			}
		})
	}
}

// Samples of messages holding well-known types encode in the JSON mapping
// (an empty google.protobuf.Value cannot: it needs one kind set).
func TestSamplesOfWellKnownTypesEncodeAsJSON(t *testing.T) {
	src := "syntax = \"proto3\";\npackage t;\nimport \"google/protobuf/struct.proto\";\nimport \"google/protobuf/any.proto\";\nimport \"google/protobuf/timestamp.proto\";\nimport \"google/protobuf/duration.proto\";\n" +
		"message M { google.protobuf.Value v = 1; repeated google.protobuf.Value vs = 2; google.protobuf.Struct s = 3; google.protobuf.ListValue l = 4; google.protobuf.Any a = 5; google.protobuf.Timestamp t = 6; google.protobuf.Duration d = 7; map<string, google.protobuf.Value> mv = 8; }"
	s, err := Load(fstest.MapFS{"a.proto": {Data: []byte(src)}}, "a.proto", "")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6; i++ {
		if _, err := EncodeJSON(Sampler{}.Sample(s.Message, i)); err != nil {
			t.Errorf("sample %d: %v", i, err)
		}
	}
}

// TestFrameUnsignedMessageIndex: confluent-kafka-python 1.7 writes the
// message indexes as unsigned varints, Confluent's Java serializer (and
// evtool) as zigzag varints. A frame in 1.7's encoding is read where it is
// unambiguous (read as zigzag it names no message) and refused with both
// readings where it is not; zigzag frames read as before.
func TestFrameUnsignedMessageIndex(t *testing.T) {
	files := fstest.MapFS{"m.proto": {Data: []byte(`syntax = "proto3";
package p;
message A {
  message N { string s = 1; }
  message M { string s = 1; }
  string s = 1;
}
message B { string s = 1; }
message C { string s = 1; }
`)}}
	header := []byte{0, 0, 0, 0, 9}
	payload := []byte{0x0a, 0x01, 'x'} // s = "x"
	cases := []struct {
		message string
		index   []byte
		want    string // "" decodes s = "x"
	}{
		{"p.A", []byte{0}, ""},         // [0]: both encodings write 0
		{"p.B", []byte{2, 2}, ""},      // zigzag [1]
		{"p.B", []byte{1, 1}, ""},      // 1.7's [1]: count -1 as zigzag
		{"p.C", []byte{1, 2}, ""},      // 1.7's [2]
		{"p.A.N", []byte{4, 0, 0}, ""}, // zigzag [0 0]
		{"p.A.M", []byte{4, 0, 2}, ""}, // zigzag [0 1]
		{"p.A.N", []byte{2, 0, 0}, "ambiguous message index: read as zigzag varints (Confluent's encoding) it is [0], naming p.A; read as unsigned varints (confluent-kafka-python 1.7's) it is [0 0]"},
		{"p.A.M", []byte{2, 0, 1}, "ambiguous message index"},
		{"p.B", []byte{1, 2}, "bad message-index array"},                          // 1.7's [2] is C, not B
		{"p.C", []byte{2, 2}, "message index [1] names p.B, not the event's p.C"}, // zigzag B
	}
	for _, tc := range cases {
		s, err := Load(files, "m.proto", tc.message)
		if err != nil {
			t.Fatal(err)
		}
		framed := append(append(append([]byte{}, header...), tc.index...), payload...)
		f, m, err := s.DecodeFramed(framed)
		switch {
		case tc.want != "":
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s % x: %v, want %q", tc.message, tc.index, err, tc.want)
			}
		case err != nil:
			t.Errorf("%s % x: %v", tc.message, tc.index, err)
		case f.ID != 9 || m.Get(s.Message.Fields().ByName("s")).String() != "x":
			t.Errorf("%s % x: frame %v, message %v", tc.message, tc.index, f, m)
		}
	}
}
