package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
	"github.com/evtool/evtool/internal/jsonpos"
	"github.com/evtool/evtool/internal/jsonstrict"
)

// KafkaConfig is the kafka section of evtool.yaml and event.yaml: how the
// events of Avro and Protobuf types are put in Kafka records.
type KafkaConfig struct {
	Framing Framing `yaml:"framing"`
}

// Framing says whether binary Avro and Protobuf data is written in the
// Confluent wire format (JSON data only when set explicitly: FramesJSON).
type Framing string

const (
	// FramingConfluent, the default, frames the data of a version that
	// has a registry id (magic byte 0, 4-byte big-endian id, Protobuf
	// message indexes): what Confluent's deserializers expect. A version
	// without an id is written unframed.
	FramingConfluent Framing = "confluent"
	// FramingNone writes the plain binary encoding.
	FramingNone Framing = "none"
)

// Framing returns the type's framing: event.yaml's, else evtool.yaml's,
// else FramingConfluent.
func (c *Catalog) Framing(t *EventType) Framing {
	if t != nil && t.Meta.Kafka.Framing != "" {
		return t.Meta.Kafka.Framing
	}
	if c.Config.Kafka.Framing != "" {
		return c.Config.Kafka.Framing
	}
	return FramingConfluent
}

// FramesJSON reports whether JSON data of t is written Confluent-framed:
// only when event.yaml or evtool.yaml says kafka.framing: confluent. The
// default frames Avro and Protobuf data, which needs a registry to be
// read anyway, but JSON consumers without one would meet frames they
// never asked for.
func (c *Catalog) FramesJSON(t *EventType) bool {
	if c == nil {
		return false
	}
	if t != nil && t.Meta.Kafka.Framing != "" {
		return t.Meta.Kafka.Framing == FramingConfluent
	}
	return c.Config.Kafka.Framing == FramingConfluent
}

// SchemaIDsFile is where `evtool registry serve` keeps the schema ids it
// gave the catalog's versions: beside evtool.yaml (a slash path relative
// to the catalog directory), committed with the catalog, and embedded
// with it (`//go:embed evtool.* schemas`). A JSON object whose "ids" map
// a schema's SchemaIDDigest to its id.
const SchemaIDsFile = "evtool.ids.json"

// LegacySchemaIDsFile is where serve kept the ids before, relative to the
// catalog root: a hidden directory there, which the loader does not read
// and go:embed leaves out. It is read when SchemaIDsFile is absent; serve
// moves it to SchemaIDsFile.
const LegacySchemaIDsFile = ".registry/ids.json"

// SchemaIDDigest is a schema's identity in a schema registry: the key of
// its id in the ids file, which serve writes and LoadSchemaIDs reads.
// It is not the catalog's Digest for every format: a registry gives
// schemas that differ in what their readers use different ids, and one
// id to a .proto file whatever message of it an event type names.
//
//   - Avro: the whole schema with named types inlined, defaults, aliases
//     and logical types kept (the Parsing Canonical Form drops them),
//     whatever file each named type is written in, and numbers with a
//     fraction or exponent in one spelling (Confluent's registry hands
//     back Java's, 1.0 for a double).
//   - Protobuf: the identity of the version's file (format/protobuf's
//     FileIDDigest).
//   - JSON Schema: DigestOf (serve keys a version that $refs shared files
//     by its bundled document, which only it builds; JSON Schema data is
//     never framed with an id).
func SchemaIDDigest(s format.Schema) string { return formats.Of(s).SchemaIDDigest(s) }

// SchemaIDs are the Confluent schema ids of a catalog's versions, matched
// by the version's SchemaIDDigest. The zero value (no ids file) knows no
// ids.
type SchemaIDs struct {
	byVersion map[*Version]uint32
	// byID holds the versions of each id: versions with the same
	// canonical schema (one that only adds a doc) share the id.
	byID map[uint32][]*Version
	// all holds every id of the file, also those of schemas that are no
	// version of the catalog any more: an id a registry handed out is not
	// unknown.
	all map[uint32]bool
	max uint32
}

// LoadSchemaIDs reads the catalog's ids file through the file system it
// was loaded from (for a directory an os.Root, which refuses a symlink
// that leaves it; embedded files or a git tree otherwise); a catalog
// without one has no ids.
func LoadSchemaIDs(c *Catalog) (*SchemaIDs, error) {
	p := c.Show(SchemaIDsFile)
	if c.openFS == nil {
		return &SchemaIDs{}, nil // a catalog not loaded from files
	}
	fsys, closeFS, err := c.openFS()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	defer closeFS()
	data, err := format.ReadFile(fsys, SchemaIDsFile, maxSchemaIDsBytes)
	if errors.Is(err, fs.ErrNotExist) {
		p = c.ShowRel(LegacySchemaIDsFile)
		data, err = format.ReadFile(fsys, path.Join(c.rootPath, LegacySchemaIDsFile), maxSchemaIDsBytes)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return &SchemaIDs{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return parseSchemaIDs(c, p, data)
}

// maxSchemaIDsBytes bounds the ids file: a million ids fit.
const maxSchemaIDsBytes = 128 << 20

// parseSchemaIDs reads the ids file's text; p names it in errors.
func parseSchemaIDs(c *Catalog, p string, data []byte) (*SchemaIDs, error) {
	ids := &SchemaIDs{byVersion: map[*Version]uint32{}, byID: map[uint32][]*Version{}, all: map[uint32]bool{}}
	var doc struct {
		IDs map[string]int64 `json:"ids"`
	}
	// jsonstrict first: its errors carry a line and column, and it
	// refuses a digest given twice, which encoding/json resolves silently.
	if _, err := jsonstrict.Decode(data); err != nil {
		return nil, fmt.Errorf("%s: not a schema ids file: %v", p, err)
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			line, col := jsonpos.LineCol(data, te.Offset)
			return nil, fmt.Errorf("%s: not a schema ids file: line %d, column %d: %v", p, line, col, err)
		}
		return nil, fmt.Errorf("%s: not a schema ids file: %v", p, err)
	}
	byDigest := map[string]uint32{}
	for d, id := range doc.IDs {
		if id < 1 || id > 1<<31-1 {
			return nil, fmt.Errorf("%s: id %d of %s is not a positive 32-bit schema id", p, id, d)
		}
		byDigest[d] = uint32(id)
		ids.all[uint32(id)] = true
		ids.max = max(ids.max, uint32(id))
	}
	// A version is found under its SchemaIDDigest, else under its catalog
	// Digest, the key files written by hand or by tools that followed the
	// catalog's digest use (serve's keys never equal a catalog Digest:
	// they hash a prefixed form). Versions that differ only in what the
	// catalog digest leaves out (an Avro default) share it but have two
	// registry ids; once one of them is found by its registry key, the
	// catalog key is not the others' id, and they have none.
	served := map[*Version]uint32{}
	claimed := map[string]bool{}
	for _, t := range c.Types {
		for _, v := range t.Versions {
			if v.Compiled == nil {
				continue
			}
			if id, ok := byDigest[SchemaIDDigest(v.Compiled)]; ok {
				served[v] = id
				claimed[v.Digest] = true
			}
		}
	}
	for _, t := range c.Types {
		for _, v := range t.Versions {
			id, ok := served[v]
			if !ok && v.Digest != "" && !claimed[v.Digest] {
				id, ok = byDigest[v.Digest]
			}
			if ok {
				ids.byVersion[v] = id
				ids.byID[id] = append(ids.byID[id], v)
			}
		}
	}
	return ids, nil
}

// Of returns the registry id of v.
func (s *SchemaIDs) Of(v *Version) (uint32, bool) {
	if s == nil {
		return 0, false
	}
	id, ok := s.byVersion[v]
	return id, ok
}

// Version returns the first version with registry id id (nil when the id
// is not one of the catalog's versions).
func (s *SchemaIDs) Version(id uint32) *Version {
	if vs := s.Versions(id); len(vs) > 0 {
		return vs[0]
	}
	return nil
}

// Versions returns the versions with registry id id, in catalog order.
func (s *SchemaIDs) Versions(id uint32) []*Version {
	if s == nil {
		return nil
	}
	return s.byID[id]
}

// Known reports whether id is in the ids file.
func (s *SchemaIDs) Known(id uint32) bool { return s != nil && s.all[id] }

// Empty reports whether no id is known.
func (s *SchemaIDs) Empty() bool { return s == nil || len(s.all) == 0 }

// Unknown returns an id the file does not hold, above every id it does.
func (s *SchemaIDs) Unknown() uint32 {
	if s == nil {
		return 1 << 30
	}
	return max(s.max+1000, 1<<30)
}

// List returns the known ids in order.
func (s *SchemaIDs) List() []uint32 {
	if s == nil {
		return nil
	}
	out := make([]uint32, 0, len(s.all))
	for id := range s.all {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
