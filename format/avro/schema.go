// Package avro is evtool's Avro schema format: it loads .avsc files
// (named types resolved among sibling and shared files, never outside the
// given file system), lints what registries skip, and encodes, decodes,
// validates and samples datums. Encoding, decoding, canonical form and
// resolution are github.com/twmb/avro's; this package adds positions
// (file, line, JSON pointer) and the checks the library does not make.
package avro

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"

	twmb "github.com/twmb/avro"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/jsonpos"
)

// Content types a datum can come in.
const (
	ContentTypeBinary = "application/avro"
	ContentTypeJSON   = "application/json"
)

// Schema is one compiled Avro schema with the positioned tree it was built
// from.
type Schema struct {
	Root *Node
	// File is the schema's own file; Files every file it uses, own first.
	File  string
	Files []string

	texts map[string][]byte
	// full keeps logical types; physical is the same schema without them,
	// the form datums are sampled, resolved and shown in.
	full, physical *twmb.Schema
	// minSize is every node's smallest datum in bytes (minSizes).
	minSize map[*Node]int64
	// decimals holds the nodes a decimal is reachable from: decoding
	// checks decimals against their precision (the library does not).
	decimals map[*Node]bool
	// maps holds the nodes a map is reachable from: Encode and EncodeJSON
	// sort those maps' entries (order.go).
	maps map[*Node]bool
}

func (s *Schema) compile() error {
	var err error
	if s.full, err = twmb.Parse(string(emit(s.Root, false, true))); err != nil {
		return err
	}
	s.physical, err = twmb.Parse(string(emit(s.Root, true, true)))
	s.decimals = reachingDecimal(s.Root)
	s.maps = reachingMap(s.Root)
	return err
}

// Canonical is the schema's Parsing Canonical Form (the specification's
// identity of a schema: no doc, aliases, defaults or logical types).
func (s *Schema) Canonical() []byte { return s.full.Canonical() }

// Digest is the hex SHA-256 of the canonical form.
func (s *Schema) Digest() string {
	h := sha256.Sum256(s.Canonical())
	return hex.EncodeToString(h[:])
}

// JSON is the schema as one self-contained document, named types inlined
// at their first use: what a registry without references stores.
func (s *Schema) JSON() []byte { return emit(s.Root, false, true) }

// Line returns the line of pointer in one of the schema's files (1 when
// the file is unknown).
func (s *Schema) Line(file, pointer string) int {
	text, ok := s.texts[file]
	if !ok {
		return 1
	}
	line, _ := jsonpos.Find(text, pointer)
	return line
}

// Datums are generic values in the physical form: int32, int64, float32,
// float64, bool, string, []byte, nil, []any, map[string]any for maps and
// records, and a union value as map[string]any{branchName: value} (nil for
// null), exactly what Avro's JSON encoding writes.

// Encode writes datum in Avro's binary encoding, every map's entries in
// order of their keys, so that a datum always has the same bytes.
func (s *Schema) Encode(datum any) ([]byte, error) {
	b, err := s.physical.Encode(datum)
	if err != nil || !s.maps[s.Root] {
		return b, err
	}
	return orderedBinary(s.Root, s.maps, b)
}

// EncodeJSON writes datum in Avro's JSON encoding (unions tagged), every
// map's members in order of their keys.
func (s *Schema) EncodeJSON(datum any) ([]byte, error) {
	b, err := s.encodeJSONAnyOrder(datum)
	if err != nil || !s.maps[s.Root] {
		return b, err
	}
	return orderedJSON(s.Root, s.maps, b)
}

// encodeJSONAnyOrder is EncodeJSON with maps in the library's order, for
// JSON that is decoded again into Go maps.
func (s *Schema) encodeJSONAnyOrder(datum any) ([]byte, error) {
	return s.physical.EncodeJSON(datum, twmb.TaggedUnions())
}

// Decode reads exactly one binary datum; trailing bytes are an error, and
// so is a decimal with more digits than its precision (the library reads
// it without a word; inDomain).
func (s *Schema) Decode(data []byte) (any, error) {
	v, err := decodeExact(s.physical, s.Root, data)
	if err != nil {
		return nil, err
	}
	if err := s.inDomain(v); err != nil {
		return nil, err
	}
	return v, nil
}

// decodeExact decodes data written with writer (the positioned tree of
// the datum's schema) with ls, after checking what decoding it costs.
func decodeExact(ls *twmb.Schema, writer *Node, data []byte) (any, error) {
	if err := checkDecodeCost(writer, data); err != nil {
		return nil, err
	}
	var v any
	rest, err := ls.Decode(data, &v, twmb.TaggedUnions())
	if err != nil {
		return nil, err
	}
	if len(rest) > 0 {
		return nil, fmt.Errorf("%d bytes left after the datum, from byte offset %d", len(rest), len(data)-len(rest))
	}
	return v, nil
}

// DecodeJSON reads a datum in Avro's JSON encoding. Like the library it
// also accepts untagged union values; unlike it, a record member that is
// not one of the record's fields is an error, not skipped.
func (s *Schema) DecodeJSON(data []byte) (any, error) {
	var v any
	if err := s.physical.DecodeJSON(data, &v, twmb.TaggedUnions()); err != nil {
		return nil, err
	}
	if err := unknownKeys(s.Root, data); err != nil {
		return nil, err
	}
	if err := s.inDomain(v); err != nil {
		return nil, err
	}
	return v, nil
}

// inDomain checks every decimal of datum against its precision.
func (s *Schema) inDomain(datum any) error {
	if len(s.decimals) == 0 {
		return nil
	}
	dc := &domainCheck{reach: s.decimals, limits: map[int]*big.Int{}}
	return dc.check(s.Root, datum, "")
}

// DecodeFrom reads a binary datum written with writer and resolves it to
// this (the reader's) schema by the specification's rules: the library's
// resolution, which refuses pairs it finds incompatible. NewResolved
// does the same for many datums.
func (s *Schema) DecodeFrom(writer *Schema, data []byte) (any, error) {
	r, err := NewResolved(writer, s)
	if err != nil {
		return nil, err
	}
	return r.Decode(data)
}

// LibraryCompatible asks the library whether reader reads writer's data.
// It stops at the first problem and ignores logical types: a cross-check,
// never the verdict.
func LibraryCompatible(writer, reader *Schema) error {
	return twmb.CheckCompatibility(writer.physical, reader.physical)
}

// Framing says whether binary datums carry the Confluent wire-format
// header (magic byte 0, 4-byte big-endian schema id).
type Framing int

const (
	// FramingAuto takes a header when one is there and the rest decodes.
	FramingAuto Framing = iota
	FramingNone
	FramingConfluent
)

// Frame prefixes datum with the Confluent header for schema id.
func Frame(id uint32, datum []byte) []byte { return format.Frame(id, datum) }

// Unframe splits a Confluent-framed payload.
func Unframe(data []byte) (id uint32, datum []byte, err error) { return format.Unframe(data) }

// DecodeBinary decodes an Avro binary datum with the given framing and
// returns the schema id when framed (ok false otherwise).
func (s *Schema) DecodeBinary(data []byte, framing Framing) (datum any, id uint32, framed bool, err error) {
	switch framing {
	case FramingNone:
		datum, err = s.Decode(data)
		return datum, 0, false, err
	case FramingConfluent:
		id, body, err := Unframe(data)
		if err != nil {
			return nil, 0, false, err
		}
		datum, err = s.Decode(body)
		return datum, id, true, err
	}
	id, body, ferr := Unframe(data)
	var framedErr error
	if ferr == nil {
		if datum, framedErr = s.Decode(body); framedErr == nil {
			return datum, id, true, nil
		}
	}
	datum, err = s.Decode(data)
	if err != nil && framedErr != nil {
		// Both readings failed; a record that starts with a frame header
		// is most likely framed, so say what went wrong there too.
		err = fmt.Errorf("as a Confluent-framed datum (schema id %d): %v; as an unframed datum: %w", id, framedErr, err)
	}
	return datum, 0, false, err
}

// Validate checks that data is one datum of the schema: Avro binary
// (Confluent framing optional) for application/avro, Avro's JSON encoding
// for application/json (and +json types).
func (s *Schema) Validate(data []byte, contentType string) error {
	switch {
	case isBinary(contentType):
		_, _, _, err := s.DecodeBinary(data, FramingAuto)
		return err
	case format.IsJSON(contentType):
		_, err := s.DecodeJSON(bytes.TrimSpace(data))
		return err
	default:
		return contentTypeError(contentType)
	}
}

// mediaType is a content type without parameters, in lower case.
func mediaType(contentType string) string {
	ct, _, _ := strings.Cut(contentType, ";")
	return strings.TrimSpace(strings.ToLower(ct))
}

// DefaultDatum is field f's default in the physical datum form (unions
// tagged), what a reader fills in when the writer has no such field.
func DefaultDatum(f *Field) (any, error) {
	if !f.HasDefault {
		return nil, fmt.Errorf("field %q has no default", f.Name)
	}
	ls, err := twmb.Parse(string(emit(f.Type, true, true)))
	if err != nil {
		return nil, err
	}
	raw, err := completeDefault(f.Type, f.Default)
	if err != nil {
		return nil, err
	}
	var v any
	if err := ls.DecodeJSON(raw, &v, twmb.TaggedUnions()); err != nil {
		return nil, err
	}
	return v, nil
}

// completeDefault fills the fields a record inside a default leaves out
// with those fields' own defaults, as Java's default check and the
// library's resolution do; the library's JSON decoder alone would call
// {} an invalid default for a record whose fields all have defaults. A
// union inside a default is the first branch its JSON kind fits. A record whose
// field defaults to itself would fill forever, so filling stops at
// maxNesting levels (the library then reports the missing field).
func completeDefault(n *Node, raw json.RawMessage) (json.RawMessage, error) {
	left := maxCompletedDefault
	return completeDefaultAt(n, raw, 0, &left)
}

// maxCompletedDefault bounds a default once the defaults of the fields
// it leaves out are filled in, in bytes of JSON: each record type of two
// fields defaulting to {} of the one before doubles it, so a 3 KB schema
// of 22 such types took minutes and gigabytes to lint.
const maxCompletedDefault = MaxDatumSize

func completeDefaultAt(n *Node, raw json.RawMessage, depth int, left *int) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return raw, nil
	}
	filled, err := fillDefaults(n, v, depth, left)
	if err != nil {
		return nil, err
	}
	out, err := json.Marshal(filled)
	if err != nil {
		return raw, nil
	}
	if *left -= len(out); *left < 0 {
		return nil, fmt.Errorf("with the defaults of the fields it leaves out filled in, the default is over %d bytes of JSON, evtool's limit", maxCompletedDefault)
	}
	return out, nil
}

func fillDefaults(n *Node, v any, depth int, left *int) (any, error) {
	if depth > maxNesting {
		return v, nil
	}
	depth++
	switch n.Kind {
	case "record":
		m, ok := v.(map[string]any)
		if !ok {
			return v, nil
		}
		for _, f := range n.Fields {
			var err error
			if val, has := m[f.Name]; has {
				m[f.Name], err = fillDefaults(f.Type, val, depth, left)
			} else if f.HasDefault {
				var raw json.RawMessage
				raw, err = completeDefaultAt(f.Type, f.Default, depth, left)
				m[f.Name] = raw
			}
			if err != nil {
				return nil, err
			}
		}
	case "union":
		// The first branch the value can be (Avro 1.12 takes a union's
		// default from the first branch it matches).
		kind := valueKind(v)
		for _, b := range n.Branches {
			if takes(b, kind) {
				return fillDefaults(b, v, depth, left)
			}
		}
	case "array":
		if list, ok := v.([]any); ok {
			for i := range list {
				var err error
				if list[i], err = fillDefaults(n.Items, list[i], depth, left); err != nil {
					return nil, err
				}
			}
		}
	case "map":
		if m, ok := v.(map[string]any); ok {
			for k := range m {
				var err error
				if m[k], err = fillDefaults(n.Values, m[k], depth, left); err != nil {
					return nil, err
				}
			}
		}
	}
	return v, nil
}

// valueKind is the JSON kind of a decoded JSON value (jsonKindOf).
func valueKind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case json.RawMessage:
		return jsonKindOf(x)
	}
	return "number"
}

// Resolved decodes data written with one schema into another's layout; make
// one per writer/reader pair and reuse it (resolving compiles a program).
type Resolved struct {
	schema *twmb.Schema
	writer *Node
}

// NewResolved prepares decoding writer data for reader by the library's
// resolution; it fails for pairs the library finds incompatible.
func NewResolved(writer, reader *Schema) (*Resolved, error) {
	r, err := twmb.Resolve(writer.physical, reader.physical)
	if err != nil {
		return nil, err
	}
	return &Resolved{schema: r, writer: writer.Root}, nil
}

// Decode reads exactly one binary datum of the writer and returns it in
// the reader's layout.
func (r *Resolved) Decode(data []byte) (any, error) { return decodeExact(r.schema, r.writer, data) }

// Reference is a named type the schema uses from another file: what a
// Confluent schema reference names.
type Reference struct {
	Name string
	File string
}

// References lists the named types defined outside the schema's own file,
// by file then name.
func (s *Schema) References() []Reference {
	var out []Reference
	walk(s.Root, func(n *Node) {
		if n.Named() && n.File != s.File {
			out = append(out, Reference{Name: n.Name, File: n.File})
		}
	})
	slices.SortFunc(out, func(a, b Reference) int {
		return cmp.Or(strings.Compare(a.File, b.File), strings.Compare(a.Name, b.Name))
	})
	return out
}
