package avro

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"reflect"
	"regexp"
	"strconv"
	"sync"

	"github.com/evtool/evtool/format"
)

// Provider is Avro behind the seam (format/formats lists it).
type Provider struct{}

var _ format.Provider = Provider{}

// Kind is format.Avro.
func (Provider) Kind() format.Kind { return format.Avro }

// PartitionKey reads a partition key from a binary Avro datum: the value
// at a path of record fields, when it is a string, int or long (ok false
// for anything else, a union say, which the JSON encoding tags, and for
// the JSON encoding). Under kafka.framing none the datum is never taken
// for framed. unframed is data without its frame, when it is a datum.
func (Provider) PartitionKey(sch format.Schema, k format.KeyData) (key any, ok bool, unframed []byte) {
	s, isAvro := sch.(*Schema)
	if !isAvro || format.IsJSON(k.ContentType) {
		return nil, false, nil
	}
	read := FramingAuto
	if k.Unframed {
		read = FramingNone
	}
	datum, _, framed, err := s.DecodeBinary(k.Data, read)
	if err != nil {
		return nil, false, nil
	}
	unframed = k.Data
	if framed {
		unframed = k.Data[5:]
	}
	key, ok = keyIn(datum, k.Tokens)
	return key, ok, unframed
}

// keyIn is the key at tokens in an Avro datum.
func keyIn(datum any, tokens []string) (any, bool) {
	for _, tok := range tokens {
		rec, ok := datum.(map[string]any)
		if !ok {
			return nil, false
		}
		if datum, ok = rec[tok]; !ok {
			return nil, false
		}
	}
	switch v := datum.(type) {
	case string:
		return v, true
	case int32:
		return json.Number(strconv.FormatInt(int64(v), 10)), true
	case int64:
		return json.Number(strconv.FormatInt(v, 10)), true
	}
	return nil, false
}

// PointerForm is v: Avro's JSON encoding writes every field.
func (Provider) PointerForm(_ format.Schema, v any) any { return v }

// Sampler samples with Samples (covering) and Sample (random).
func (Provider) Sampler(sch format.Schema, seed uint64, _ format.SampleOptions) (format.CoverSampler, error) {
	s, ok := sch.(*Schema)
	if !ok {
		return nil, format.NotKind(sch, format.Avro)
	}
	return &coverSampler{s: s, seed: seed, n: s.Cover()}, nil
}

// coverSampler is an Avro schema's format.CoverSampler.
type coverSampler struct {
	s    *Schema
	seed uint64
	n    int
	// cover holds the covering datums, made on first use.
	cover []any
}

func (c *coverSampler) Cover() int { return c.n }

func (c *coverSampler) Sample(rng *rand.Rand, k int) ([]byte, error) {
	var datum any
	var err error
	if k >= 0 {
		if c.cover == nil {
			if c.cover, err = c.s.Samples(c.seed, c.n); err != nil {
				return nil, err
			}
		}
		datum = c.cover[k]
	} else if datum, err = c.s.Sample(rng.Uint64()); err != nil {
		return nil, err
	}
	return c.s.EncodeJSON(datum)
}

// Unframe takes a Confluent frame off data when it starts with a header
// and the rest is one datum of s (an Avro datum may itself start with a
// zero byte).
func (Provider) Unframe(sch format.Schema, data []byte) ([]byte, uint32, bool) {
	s, ok := sch.(*Schema)
	if !ok || len(data) < 5 || data[0] != 0 {
		return data, 0, false // not framed: no need to read the datum to know
	}
	if _, id, framed, err := s.DecodeBinary(data, FramingAuto); err == nil && framed {
		_, payload, _ := Unframe(data)
		return payload, id, true
	}
	return data, 0, false
}

// Frame is format.Frame.
func (Provider) Frame(_ format.Schema, id uint32, payload []byte) []byte {
	return format.Frame(id, payload)
}

// CheckUnframed decodes data as one datum.
func (Provider) CheckUnframed(sch format.Schema, data []byte) (bool, error) {
	s, ok := sch.(*Schema)
	if !ok {
		return false, nil
	}
	_, err := s.Decode(data)
	return true, err
}

// DecodeData reads binary data once, its frame taken off here (DecodeValue
// would guess again, and take a datum that starts like a frame, or any
// datum under kafka.framing none, for framed).
func (p Provider) DecodeData(sch format.Schema, data []byte, ct string, unframed bool) (any, error) {
	s, ok := sch.(*Schema)
	if !ok || format.IsJSON(ct) {
		return sch.DecodeValue(data, ct)
	}
	if err := s.Validate(nil, ct); errors.Is(err, format.ErrContentType) {
		return nil, err // refused as DecodeValue refuses it
	}
	payload := data
	if !unframed {
		payload, _, _ = p.Unframe(s, data)
	}
	// The seam reads an unframed datum without guessing only behind a
	// frame: this one's id is never looked at.
	v, _, err := s.UnframeValue(format.Frame(0, payload))
	return v, err
}

// CompatProfiles are none: Avro has one answer, the specification's
// schema resolution.
func (Provider) CompatProfiles() format.Profiles {
	return format.Profiles{None: "Avro compatibility is the specification's schema resolution"}
}

var _ format.FileCompiler = Provider{}

// CompileVersion is Load: named types resolve among the .avsc files of
// the version's directory and of the shared directories.
func (Provider) CompileVersion(fsys fs.FS, _, file string, shared []string, _ string) (format.Schema, error) {
	s, err := Load(fsys, file, shared...)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// CompileShared is CompileVersion.
func (p Provider) CompileShared(fsys fs.FS, root, file string, shared []string) error {
	_, err := p.CompileVersion(fsys, root, file, shared, "")
	return err
}

var _ format.FileSharer = Provider{}

// Sharing is the provider reading the shared directories' files once for
// all the compilations of one load (Files).
func (Provider) Sharing() format.FileCompiler { return sharing{files: NewFiles()} }

// sharing is Provider compiling with one load's Files.
type sharing struct {
	Provider
	files *Files
}

// CompileVersion is Provider's, with the shared files read once.
func (p sharing) CompileVersion(fsys fs.FS, _, file string, shared []string, _ string) (format.Schema, error) {
	s, err := loadShared(fsys, p.files, file, shared)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// CompileShared is CompileVersion.
func (p sharing) CompileShared(fsys fs.FS, root, file string, shared []string) error {
	_, err := p.CompileVersion(fsys, root, file, shared, "")
	return err
}

// SchemaFiles is the schema's Files, which are paths in the fsys.
func (Provider) SchemaFiles(sch format.Schema, _ string) []string {
	if s, ok := sch.(*Schema); ok {
		return s.Files
	}
	return nil
}

// LintRule is RuleSchemaAvro.
func (Provider) LintRule() string { return RuleSchemaAvro }

// Reencode resolves the datum with from as the writer and to as the
// reader, then writes it with to; it fails when the datum would not keep
// its meaning (sameMeaning).
func (p Provider) Reencode(from, to format.Schema, data []byte, ct string, unframed bool) ([]byte, error) {
	fa, ok := from.(*Schema)
	ta, tok := to.(*Schema)
	if !ok || !tok {
		return nil, errors.New("not two versions of one Avro type")
	}
	binary := !format.IsJSON(ct)
	payload := data
	if binary {
		if !unframed {
			payload, _, _ = p.Unframe(fa, data)
		}
	} else {
		datum, err := fa.DecodeJSON(bytes.TrimSpace(data))
		if err != nil {
			return nil, err
		}
		if payload, err = fa.Encode(datum); err != nil {
			return nil, err
		}
	}
	datum, err := ta.DecodeFrom(fa, payload)
	if err != nil {
		return nil, err
	}
	if err := sameMeaning(fa, ta, payload, datum); err != nil {
		return nil, err
	}
	if binary {
		return ta.Encode(datum)
	}
	return ta.EncodeJSON(datum)
}

// sameMeaning fails when a datum of from (payload), written again as
// datum of to, no longer reads back as itself: resolution filled a
// default for an enum symbol or union branch to lacks, or dropped a field
// set to something other than its default. Skew stands for a producer on
// another version writing the same fact; a datum whose meaning changed is
// another fact, and no consumer could match the clean run on it.
func sameMeaning(from, to *Schema, payload []byte, datum any) error {
	orig, err := from.Decode(payload)
	if err != nil {
		return err
	}
	written, err := to.Encode(datum)
	if err != nil {
		return err
	}
	back, err := from.DecodeFrom(to, written)
	if err != nil {
		return err
	}
	if !reflect.DeepEqual(orig, back) {
		return errors.New("the datum would not keep its meaning under that version")
	}
	return nil
}

// EventRecord is the full name of the schema's top-level named type.
func (Provider) EventRecord(sch format.Schema) string {
	if s, ok := sch.(*Schema); ok && s.Root != nil && s.Root.Named() {
		return s.Root.Name
	}
	return ""
}

// refFullName is an Avro full name: what a reference to an Avro named type
// is called, and the only names pull turns into file names.
var refFullName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)
})

// CheckRefName accepts an Avro full name.
func (Provider) CheckRefName(name string, show func(string) string) error {
	if len(name) > 255 || !refFullName().MatchString(name) {
		return fmt.Errorf("reference name %q is not an Avro full name (dot-separated names of letters, digits and _)", show(name))
	}
	return nil
}

// RefFile is the named type's file in the shared directory common/.
func (Provider) RefFile(name string) (string, bool) { return "schemas/common/" + name + ".avsc", true }
