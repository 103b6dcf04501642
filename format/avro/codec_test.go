package avro

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

const orderV1 = `{"type": "record", "name": "com.x.Order", "fields": [
  {"name": "id", "type": "string"},
  {"name": "qty", "type": "int"},
  {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "PAID"]}}]}`

const orderV2 = `{"type": "record", "name": "com.x.Order", "fields": [
  {"name": "id", "type": "string"},
  {"name": "qty", "type": "long"},
  {"name": "note", "type": ["null", "string"], "default": null},
  {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "PAID", "SHIPPED"]}}]}`

func TestEncodeDecodeValidate(t *testing.T) {
	s, err := Parse("v1.avsc", []byte(orderV1))
	if err != nil {
		t.Fatal(err)
	}
	datum := map[string]any{"id": "o-1", "qty": int32(3), "status": "PAID"}
	bin, err := s.Encode(datum)
	if err != nil {
		t.Fatal(err)
	}
	js, err := s.EncodeJSON(datum)
	if err != nil {
		t.Fatal(err)
	}
	if string(js) != `{"id":"o-1","qty":3,"status":"PAID"}` {
		t.Errorf("JSON encoding = %s", js)
	}
	framed := Frame(7, bin)
	tests := []struct {
		name, ct string
		data     []byte
		wantErr  string
	}{
		{"binary", ContentTypeBinary, bin, ""},
		{"framed", ContentTypeBinary, framed, ""},
		{"json", ContentTypeJSON, js, ""},
		{"json with parameters", "application/json; charset=utf-8", js, ""},
		{"truncated binary", ContentTypeBinary, bin[:len(bin)-1], "short"},
		{"trailing bytes", ContentTypeBinary, append(bytes.Clone(bin), 1, 2), "left after the datum"},
		{"framed with trailing bytes", ContentTypeBinary, append(bytes.Clone(framed), 1), "as a Confluent-framed datum (schema id 7): 1 bytes left after the datum"},
		{"unknown symbol", ContentTypeJSON, []byte(`{"id":"o-1","qty":3,"status":"LOST"}`), "LOST"},
		{"json member that is no field", ContentTypeJSON, []byte(`{"id":"o-1","qty":3,"status":"PAID","extra":1}`), `member "extra" is not a field of record com.x.Order`},
		{"wrong content type", "text/plain", bin, "not an Avro encoding"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Validate(tt.data, tt.ct)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
	_, id, ok, err := s.DecodeBinary(framed, FramingConfluent)
	if err != nil || !ok || id != 7 {
		t.Errorf("framed decode: id %d framed %v err %v", id, ok, err)
	}
	if _, _, _, err := s.DecodeBinary(bin, FramingConfluent); err == nil {
		t.Error("an unframed datum passed as Confluent-framed")
	}
}

func TestDecodeFromResolvesWriterToReader(t *testing.T) {
	v1, err := Parse("v1.avsc", []byte(orderV1))
	if err != nil {
		t.Fatal(err)
	}
	v2, err := Parse("v2.avsc", []byte(orderV2))
	if err != nil {
		t.Fatal(err)
	}
	bin, _ := v1.Encode(map[string]any{"id": "o-1", "qty": int32(3), "status": "PAID"})
	got, err := v2.DecodeFrom(v1, bin)
	if err != nil {
		t.Fatal(err)
	}
	js, _ := v2.EncodeJSON(got)
	if want := `{"id":"o-1","qty":3,"note":null,"status":"PAID"}`; string(js) != want {
		t.Errorf("resolved = %s, want %s", js, want)
	}
	if _, err := v1.DecodeFrom(v2, bin); err == nil {
		t.Error("v1 reads v2 data although v2 has a symbol v1 lacks and v1 has no default")
	}
}

func TestCanonicalIgnoresFormattingDocAndDefaults(t *testing.T) {
	a, _ := Parse("a.avsc", []byte(`{"type":"record","name":"R","namespace":"n","doc":"x","fields":[{"name":"f","type":"int","default":1}]}`))
	b, _ := Parse("b.avsc", []byte("{\n \"name\": \"n.R\", \"type\": \"record\",\n \"fields\": [{\"type\": \"int\", \"name\": \"f\"}]}"))
	if a.Digest() != b.Digest() {
		t.Errorf("canonical forms differ:\n%s\n%s", a.Canonical(), b.Canonical())
	}
}

func TestDecodeJSONRejectsMembersThatAreNoField(t *testing.T) {
	const schema = `{"type": "record", "name": "com.x.Outer", "fields": [
  {"name": "id", "type": "string"},
  {"name": "inner", "type": ["null", {"type": "record", "name": "Inner", "fields": [{"name": "a", "type": "int"}]}], "default": null},
  {"name": "list", "type": {"type": "array", "items": "Inner"}, "default": []},
  {"name": "byKey", "type": {"type": "map", "values": "Inner"}, "default": {}}]}`
	s, err := Parse("v1.avsc", []byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, data, wantPtr string
	}{
		{"all fields", `{"id":"x","inner":{"com.x.Inner":{"a":1}},"list":[{"a":2}],"byKey":{"k":{"a":3}}}`, ""},
		{"untagged union record", `{"id":"x","inner":{"a":1},"list":[],"byKey":{}}`, ""},
		{"null union", `{"id":"x","inner":null,"list":[],"byKey":{}}`, ""},
		{"top-level extra", `{"id":"x","inner":null,"list":[],"byKey":{},"zz":1}`, "/zz"},
		{"extra in tagged union branch", `{"id":"x","inner":{"com.x.Inner":{"a":1,"b":2}},"list":[],"byKey":{}}`, "/inner/com.x.Inner/b"},
		{"extra in array item", `{"id":"x","inner":null,"list":[{"a":2},{"a":3,"b":1}],"byKey":{}}`, "/list/1/b"},
		{"extra in map value", `{"id":"x","inner":null,"list":[],"byKey":{"k/1":{"a":3,"b":1}}}`, "/byKey/k~11/b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.DecodeJSON([]byte(tt.data))
			var e *Error
			switch {
			case tt.wantPtr == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case tt.wantPtr != "" && err == nil:
				t.Errorf("accepted a member that is no field (want error at %s)", tt.wantPtr)
			case tt.wantPtr != "" && (!errors.As(err, &e) || e.Pointer != tt.wantPtr):
				t.Errorf("error = %v, want one at %s", err, tt.wantPtr)
			}
		})
	}
}

// TestDecodeJSONNestedUntaggedUnionsAreLinear: an untagged value under
// unions of several records at every level is checked for members that
// are no field in time linear in its nesting (it was exponential: depth 18
// took minutes).
func TestDecodeJSONNestedUntaggedUnionsAreLinear(t *testing.T) {
	s, err := Parse("v1.avsc", []byte(`{"type": "record", "name": "A", "fields": [{"name": "x", "type": ["null", "A",
  {"type": "record", "name": "B", "fields": [{"name": "x", "type": ["null", "A", "B"]}]}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	const depth = 60
	data := strings.Repeat(`{"x":`, depth) + `{"x":null,"zz":1}` + strings.Repeat(`}`, depth)
	done := make(chan error, 1)
	go func() { _, err := s.DecodeJSON([]byte(data)); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), `member "zz"`) {
			t.Errorf("error = %v, want the member zz", err)
		}
	case <-time.After(20 * time.Second): // generous: the machine may be loaded
		t.Fatal("checking members took more than 20s")
	}
}
