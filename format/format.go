// Package format is the seam between evtool's jobs (lint, compat,
// validate, replay, registry, docs, codegen) and the schema formats a
// catalog's versions are written in: JSON Schema (v<N>.json), Avro
// (v<N>.avsc) and Protobuf (v<N>.proto).
//
// Each format is one Provider, in its own package (format/jsonschema,
// format/avro, format/protobuf); package format/formats is the table of
// them (ForKind, ForFile, Of). A compiled version is a Schema: it
// validates, decodes, encodes, frames and samples data. What a job asks
// of a format beyond one Schema (partition keys, framing, re-encoding,
// registry forms, compat profiles) is a Provider method, and what only
// some formats can answer is an optional interface the job asks the
// provider for by a type assertion on the Provider, never on the Schema
// and never by comparing kinds:
//
//   - loading: RootCompiler (JSON Schema: the catalog root read once,
//     RootReader, Root, RootSession; RootFiler for findings' files and
//     lines) or FileCompiler (Avro, Protobuf:
//     each version from its file and the shared directories), with
//     InputScanner for incremental checks and MessageSelector;
//   - the command line: Namer (a format's --format name); compat diff's
//     MessagePicker, PathLoader and RootFileLoader; Dialects (JSON
//     Schema's drafts, --default-draft); the gate's EditChecker;
//   - data: BinaryDataer, Projector (consumer contracts);
//   - schema registries: RegistryCompiler, RegistryRuler, RegistryFormer,
//     DescriptorFormer, BuiltinFiler (Protobuf's well-known files),
//     SameTexter;
//   - docs and code: FieldDocumenter, AsyncAPIPayloader, GoGenerator or
//     GoElsewhere.
//
// A format's names for people (Kind.Name, a capability's own wording)
// come from here, so no code outside format/ names a format in a branch
// or a message.
package format

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"path"
	"strconv"
	"strings"

	"github.com/evtool/evtool/report"
)

// Kind is a schema format.
type Kind string

const (
	JSONSchema Kind = "jsonschema"
	Avro       Kind = "avro"
	Protobuf   Kind = "protobuf"
)

// Kinds lists every format, JSON Schema first.
func Kinds() []Kind { return []Kind{JSONSchema, Avro, Protobuf} }

// KindOf returns the format a schema file is written in, by its extension
// (.json, .avsc, .proto; lower case only, as version files are named).
func KindOf(name string) (Kind, bool) {
	switch path.Ext(name) {
	case ".json":
		return JSONSchema, true
	case ".avsc":
		return Avro, true
	case ".proto":
		return Protobuf, true
	}
	return "", false
}

// VersionFile reports whether name is a version file, vN plus a format's
// extension (v1.json, v12.avsc; N from 1 without leading zeros, at most
// nine digits), and returns N and the format.
func VersionFile(name string) (n int, k Kind, ok bool) {
	k, ok = KindOf(name)
	digits, found := strings.CutPrefix(strings.TrimSuffix(name, path.Ext(name)), "v")
	if !ok || !found || digits == "" || len(digits) > 9 || digits[0] == '0' {
		return 0, "", false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, "", false
		}
		n = n*10 + int(c-'0')
	}
	return n, k, true
}

// Ext is the extension of the format's schema files, with the dot.
func (k Kind) Ext() string {
	switch k {
	case Avro:
		return ".avsc"
	case Protobuf:
		return ".proto"
	}
	return ".json"
}

// Name is the format's name for people: "JSON Schema", "Avro", "Protobuf".
func (k Kind) Name() string {
	switch k {
	case Avro:
		return "Avro"
	case Protobuf:
		return "Protobuf"
	}
	return "JSON Schema"
}

// SchemaType is the format's schemaType in the Confluent Schema Registry
// API: JSON, AVRO or PROTOBUF.
func (k Kind) SchemaType() string {
	switch k {
	case Avro:
		return "AVRO"
	case Protobuf:
		return "PROTOBUF"
	}
	return "JSON"
}

// Content types of event data.
const (
	ContentTypeJSON     = "application/json"
	ContentTypeAvro     = "application/avro"
	ContentTypeProtobuf = "application/protobuf"
)

// ErrContentType is wrapped by every format's error for a content type
// it has no encoding for.
var ErrContentType = errors.New("unsupported content type")

// IsJSON reports whether a datacontenttype carries JSON: application/json
// or a +json type, parameters ignored. An empty content type is JSON, as
// CloudEvents' JSON format says for data without one.
func IsJSON(contentType string) bool {
	if strings.TrimSpace(contentType) == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == ContentTypeJSON || strings.HasSuffix(mt, "+json"))
}

// Schema is one compiled version of an event type in its format.
//
// Values are what the data's JSON form decodes to (JSON Schema documents,
// Avro's JSON encoding with tagged unions, Protobuf's canonical JSON
// mapping): map[string]any, []any, string, bool, nil and json.Number for
// every number. The wire form is the bytes an event carries for a content
// type: JSON text for the JSON forms, the binary encoding for
// application/avro and application/protobuf.
type Schema interface {
	// Kind is the schema's format.
	Kind() Kind
	// Canonical is the schema's identity: equal for schemas that accept
	// the same data in the same encoding, whatever their layout. Digests
	// are its SHA-256.
	Canonical() []byte
	// Validate checks data (in the wire form of contentType) against the
	// schema. The error is Errors when the format can point at the places
	// that failed.
	Validate(data []byte, contentType string) error
	// DecodeValue reads data in the wire form of contentType.
	DecodeValue(data []byte, contentType string) (any, error)
	// EncodeValue writes a value in the wire form of contentType; it fails
	// for a value the schema does not accept.
	EncodeValue(value any, contentType string) ([]byte, error)
	// ContentTypes lists the content types the format accepts, the
	// default one first.
	ContentTypes() []string
	// DefaultContentType is the content type events of the format carry
	// when nothing else is said (the binary encoding for Avro and
	// Protobuf).
	DefaultContentType() string
	// FrameValue writes a value in the Confluent wire format under a
	// registry schema id: magic byte 0, the 4-byte big-endian id
	// (Protobuf: then the message indexes), then the default content
	// type's encoding.
	FrameValue(id uint32, value any) ([]byte, error)
	// UnframeValue reads a Confluent-framed record.
	UnframeValue(data []byte) (value any, id uint32, err error)
	// SampleValue returns one value the schema accepts, deterministic for
	// seed.
	SampleValue(seed uint64) (any, error)
}

// Error is one problem with a schema file or a datum, at a line and
// column, or at a JSON pointer. File is empty for data problems.
type Error struct {
	File    string
	Line    int
	Column  int
	Pointer string
	Message string
}

// Error renders "file:line: pointer: message" when there is a pointer,
// else "file:line:col: message"; parts that are unknown are left out.
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			b.WriteString(":" + strconv.Itoa(e.Line))
			if e.Column > 0 && e.Pointer == "" {
				b.WriteString(":" + strconv.Itoa(e.Column))
			}
		}
		b.WriteString(": ")
	}
	if e.Pointer != "" {
		b.WriteString(e.Pointer + ": ")
	}
	b.WriteString(e.Message)
	return b.String()
}

// Finding is the error as a report finding of the given rule.
func (e *Error) Finding(rule string) report.Finding {
	return report.Finding{Rule: rule, Severity: report.SeverityError, File: e.File, Line: e.Line, Column: e.Column, Pointer: e.Pointer, Message: e.Message}
}

// Errors is every problem found in one schema or datum; lint reports them
// all, not the first.
type Errors []*Error

func (es Errors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// Findings turns an error from a format into findings of rule: one per
// Error, or one carrying the message when the error has no place.
// display maps the file names the format used to display paths (nil keeps
// them).
func Findings(err error, rule string, display func(file string) string) []report.Finding {
	if err == nil {
		return nil
	}
	var list Errors
	var one *Error
	switch {
	case errors.As(err, &list):
	case errors.As(err, &one):
		list = Errors{one}
	default:
		return []report.Finding{{Rule: rule, Severity: report.SeverityError, Message: err.Error()}}
	}
	out := make([]report.Finding, 0, len(list))
	for _, e := range list {
		f := e.Finding(rule)
		if display != nil && f.File != "" {
			f.File = display(f.File)
		}
		out = append(out, f)
	}
	return out
}

// Frame prefixes payload with the Confluent wire-format header for schema
// id: magic byte 0 and the 4-byte big-endian id.
func Frame(id uint32, payload []byte) []byte {
	out := make([]byte, 5, 5+len(payload))
	binary.BigEndian.PutUint32(out[1:], id)
	return append(out, payload...)
}

// Unframe splits a payload in the Confluent wire format into its schema id
// and the rest.
func Unframe(data []byte) (id uint32, payload []byte, err error) {
	if len(data) < 5 || data[0] != 0 {
		return 0, nil, errors.New("not in the Confluent wire format (magic byte 0 and a 4-byte schema id)")
	}
	return binary.BigEndian.Uint32(data[1:5]), data[5:], nil
}

// ReadFile reads a schema file from a root-confined file system: regular
// files only (a named pipe would block, a device never end), at most max
// bytes.
func ReadFile(fsys fs.FS, name string, max int64) ([]byte, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a directory", name)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s): only regular files are read", FileKind(st.Mode()))
	}
	if st.Size() > max {
		return nil, fmt.Errorf("file is larger than %d bytes", max)
	}
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		// Grew between the stat and the read.
		return nil, fmt.Errorf("file is larger than %d bytes", max)
	}
	return data, nil
}

// FileKind names what a non-regular file is.
func FileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "mode " + m.String()
}
