package format

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
)

// Provider is one schema format behind the seam: what evtool's jobs ask
// of a format that is not a question to one compiled Schema. Package
// format/formats holds the table of providers; a job asks the provider of
// a version's kind instead of switching on the kind or asserting the
// compiled type, so a format's rules stay in its own package.
type Provider interface {
	// Kind is the provider's format.
	Kind() Kind
	// PartitionKey reads a partition key from the data of an event of s
	// without building its whole JSON form: the value at tokens (a JSON
	// pointer's reference tokens) when the format can read it cheaply
	// (ok false otherwise: the caller builds the JSON form). unframed is
	// the data without its Confluent frame, when reading the key found
	// one and the format keeps the datum so (nil otherwise).
	PartitionKey(s Schema, k KeyData) (key any, ok bool, unframed []byte)
	// PointerForm completes v, the JSON form of a datum of s, with what
	// a JSON pointer into the data may name although the JSON form leaves
	// it out (Protobuf: top-level fields at their default).
	PointerForm(s Schema, v any) any
	// Unframe splits binary data of s into its payload and, when it is
	// Confluent-framed, the schema id (framed false: data as it is).
	Unframe(s Schema, data []byte) (payload []byte, id uint32, framed bool)
	// Frame writes a payload of s (the binary encoding) in the Confluent
	// wire format under id.
	Frame(s Schema, id uint32, payload []byte) []byte
	// CheckUnframed checks that binary data is one datum of s as it is,
	// never read as a frame (kafka.framing none), so bytes left after the
	// datum are an error; ok is false for a format without a binary
	// encoding.
	CheckUnframed(s Schema, data []byte) (ok bool, err error)
	// DecodeData reads data of s in content type ct as the format reads
	// an event's data: binary data is framed or not as Unframe finds,
	// never framed when unframed (kafka.framing none).
	DecodeData(s Schema, data []byte, ct string, unframed bool) (any, error)
	// SchemaIDDigest is a version's identity in a schema registry, what
	// its schema id is matched by (catalog.SchemaIDs).
	SchemaIDDigest(s Schema) string
	// CompatProfiles are the compat profiles (evtool.yaml's
	// compat.profile) the format's compatibility engine takes.
	CompatProfiles() Profiles
	// Reencode returns data of from (in content type ct; binary data
	// without a frame when unframed, kafka.framing none) as a datum of to,
	// in the same encoding, binary unframed: what a producer on version
	// to would have written for the same fact. It fails when to cannot
	// carry the datum with its meaning.
	Reencode(from, to Schema, data []byte, ct string, unframed bool) ([]byte, error)
	// EventRecord is the record a version of s declares as its event:
	// what a schema registry's record-name subjects are named for ("" when
	// the format has none).
	EventRecord(s Schema) string
	// CheckRefName checks the name of a registry schema's reference before
	// evtool writes it as a file of the catalog; show renders a name in
	// the error (it came from outside).
	CheckRefName(name string, show func(string) string) error
	// RefFile is where a checked reference is written, relative to the
	// catalog directory (ok false: it is not written, the registry
	// resolves it itself).
	RefFile(name string) (rel string, ok bool)
	// SchemaType is the format's schemaType in a Confluent schema
	// registry's API (AVRO, PROTOBUF, JSON).
	SchemaType() string
	// DeclaredRecords are the records a schema text registered with a
	// schema registry declares, those a record-name subject may name
	// (nil when it declares none or does not parse: the registration
	// reports that).
	DeclaredRecords(text []byte) []string
	// SharedSubject reports whether text registered under subject is a
	// shared schema other versions reference, named as Confluent's
	// clients name it.
	SharedSubject(text []byte, subject string) bool
	// Sampler makes the data of generated events: the first Cover()
	// samples cover the schema, the rest are random. Formats without
	// one return an error.
	Sampler(s Schema, seed uint64, opts SampleOptions) (CoverSampler, error)
}

// SampleOptions say how a Provider's Sampler samples.
type SampleOptions struct {
	// FormatEdges makes string formats take every form they allow (a
	// date-time's lower-case t and offsets, tagged e-mail addresses) where
	// by default they take the common form typical parsers accept
	// (JSON Schema's formats; the other formats have none).
	FormatEdges bool
}

// Profiles are a format's compat profiles.
type Profiles struct {
	// Names are the profiles, as a message lists them.
	Names []string
	// Default is the profile when nothing is configured ("" for a format
	// that takes none).
	Default string
	// None says why a format without profiles takes none.
	None string
}

// KeyData is the data a partition key is read from.
type KeyData struct {
	Data        []byte
	ContentType string
	// Unframed says the type's records are never Confluent-framed
	// (kafka.framing none): binary data is never taken for framed.
	Unframed bool
	// Tokens are the key pointer's reference tokens.
	Tokens []string
}

// CoverSampler makes samples of one schema in their JSON form.
type CoverSampler interface {
	// Cover is how many samples walk every union branch (oneof), enum
	// symbol and edge value.
	Cover() int
	// Sample returns the JSON text of covering sample k (0 <= k <
	// Cover()), or of a random sample drawn from rng when k < 0.
	Sample(rng *rand.Rand, k int) ([]byte, error)
}

// ValueSampler is a CoverSampler that makes its samples as values of the
// JSON form (what Schema's values are) rather than text, from a schema
// that may be stricter than the version's own: JSON Schema's samples
// come from the version compiled with every format asserted, so that
// consumers that check formats (the decoders of `evtool gen go`) take
// them even where the catalog only annotates formats. A caller that
// changes a sample (sets its partition key, mutates a field) checks it
// with ValidateValue, not with the version's schema.
type ValueSampler interface {
	CoverSampler
	// ValidateValue checks a value against the schema the samples come
	// from.
	ValueValidator
	// SampleValue is Sample's value: covering sample k (0 <= k <
	// Cover()), or a random one drawn from rng when k < 0.
	SampleValue(rng *rand.Rand, k int) (any, error)
	// Samples returns n values, the same for the same seed (the one given
	// to Sampler): typical and boundary values, distinct where the schema
	// allows it.
	Samples(n int) ([]any, error)
}

// ValueValidator is a Schema (or a ValueSampler) that validates a value
// of its JSON form as it is (JSON Schema, whose JSON form is the data),
// without writing it as text and reading it back as EncodeValue does:
// a caller that checks one value against several versions decodes it
// once.
//
// Data and examples of such a format are decoded once, as JSON, and
// validated as values (envelope, catalog); formats with a binary encoding
// are BinaryDataers instead: their data is checked in its wire form.
type ValueValidator interface {
	// ValidateValue returns nil when the schema accepts v (a decoded JSON
	// value, json.Number numbers), else a format.Errors: one Error per
	// leaf problem, with its Pointer into v and its Message, sorted by
	// pointer.
	ValidateValue(v any) error
}

// ValueErrors are the Errors of a ValueValidator's error (one without a
// pointer when err is not an Errors).
func ValueErrors(err error) Errors {
	if err == nil {
		return nil
	}
	var es Errors
	if errors.As(err, &es) {
		return es
	}
	return Errors{{Message: err.Error()}}
}

// PatternSampler is a Provider that makes strings a regular expression
// matches (JSON Schema's, whose sampler makes strings for the pattern
// keyword): how a generated event's source is made from its type's
// source pattern (event.yaml), whatever the type's format.
type PatternSampler interface {
	// MatchString returns a non-empty string pattern matches in full,
	// drawn with rng: the same rng state gives the same string.
	MatchString(pattern string, rng *rand.Rand) (string, error)
}

// NotKind is the error of a provider given a schema of another format.
func NotKind(s Schema, want Kind) error {
	got := "no"
	if s != nil {
		got = s.Kind().Name()
	}
	return fmt.Errorf("a %s schema given to the %s provider", got, want.Name())
}

// DigestOf is "sha256:" and the hex SHA-256 of a schema's canonical form.
func DigestOf(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// FileCompiler is a Provider that compiles each version of a catalog from
// its own file and the shared directories (Avro, Protobuf). JSON Schema is
// a RootCompiler instead (a $ref or $id may name any JSON file of the
// root, so the root is read once per load): a catalog asks a provider
// which of the two it is, never its kind.
type FileCompiler interface {
	// CompileVersion compiles a version's file: file and the shared
	// directories (where named types shared between types live) are paths
	// in fsys under root; message is a Protobuf type's message ("" for
	// the file's only one). Errors name files as paths in fsys.
	CompileVersion(fsys fs.FS, root, file string, shared []string, message string) (Schema, error)
	// CompileShared compiles a file of a shared directory that no version
	// used, for lint.
	CompileShared(fsys fs.FS, root, file string, shared []string) error
	// SchemaFiles are the files s was compiled from, as paths in the fsys
	// under root that CompileVersion read.
	SchemaFiles(s Schema, root string) []string
	// LintRule is the rule id of problems in the format's schema files.
	LintRule() string
}

// FileSharer is a FileCompiler whose versions resolve names among the
// files of the shared directories (Avro): Sharing returns a FileCompiler
// that reads and parses each of those files once for all the
// compilations it does, where each compilation would read them all
// again. A catalog uses one per load; the files must not change while it
// is used. Safe for concurrent use.
type FileSharer interface {
	Sharing() FileCompiler
}

// Reencode is a Provider's Reencode for formats whose datums keep their
// meaning through the JSON form: data of from in content type ct decoded,
// then written with to in the same encoding (binary unframed when ct is
// not JSON).
func Reencode(from, to Schema, data []byte, ct string) ([]byte, error) {
	v, err := from.DecodeValue(data, ct)
	if err != nil {
		return nil, err
	}
	if !IsJSON(ct) {
		return to.EncodeValue(v, to.DefaultContentType())
	}
	return to.EncodeValue(v, ContentTypeJSON)
}

// RegistryRef is one schema a registry schema references: the name the
// reference goes by and the referenced schema's text.
type RegistryRef struct {
	Name, Text string
}

// RegistryCompiler is a Provider whose registry schemas reference other
// schemas (Avro named types, Protobuf imports): it compiles a registry's
// schema with them. JSON Schema's registry form is inlined, so its
// provider is not one.
type RegistryCompiler interface {
	// CompileRegistry compiles text with the schemas it references (refs,
	// in any order; well-known Protobuf imports are the compiler's own);
	// message selects the Protobuf message ("" the first); show renders
	// a name from the registry in an error.
	CompileRegistry(text string, refs []RegistryRef, message string, show func(string) string) (Schema, error)
	// CatalogText is what a compiled registry schema s (whose registry
	// text is text) is written as in a catalog; withRefs says its
	// references are written beside it as the files it names.
	CatalogText(s Schema, text string) (file []byte, withRefs bool)
}

// RegistryMain is where a registry schema is compiled, away from the
// reference files (with the format's extension).
const RegistryMain = "evtool-registry/schema"

// EnsureNL is data with a final newline.
func EnsureNL(data []byte) []byte {
	if len(data) > 0 && data[len(data)-1] != '\n' {
		return append(append([]byte(nil), data...), '\n')
	}
	return append([]byte(nil), data...)
}

// EditChecker is a Provider whose published versions can change while
// their compiled comparison stays equal (Avro: a default, alias, logical
// type or a named type from a shared file), so the compat gate asks it
// whether a published version was edited in place.
type EditChecker interface {
	// EditedInPlace reports whether head, a version's schema now, differs
	// from published, the same version as it was published.
	EditedInPlace(published, head Schema) bool
}

// RequiredDropper is a Schema (JSON Schema) whose root names properties
// an object must have: how a poison fault makes data the schema rejects
// while keeping it near the event's own (the event without one of them)
// rather than replacing it.
type RequiredDropper interface {
	// WithoutRequired returns obj without each required property it has,
	// one object per property, in the order the schema lists them.
	WithoutRequired(obj map[string]any) []map[string]any
}
