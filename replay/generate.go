package replay

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
)

// generator makes events.generate's events: count events over keys
// partition keys, types picked at random among the listed ones, data
// sampled from each version's schema. It is deterministic for a seed and
// streams: memory depends on the number of keys, not on count.
type generator struct {
	cat   *catalog.Catalog
	spec  *GenerateSpec
	types []genType
	keys  []any // key values (string or json.Number)
	rng   *rand.Rand
	i     int64
	t0    time.Time
}

type genType struct {
	t       *catalog.EventType
	v       *catalog.Version
	key     keySpec
	sampler *formatSampler
	source  string
}

// sample returns one data value of the type (cover: an event's data,
// which walks the covering samples of an Avro or Protobuf type first).
func (gt *genType) sample(rng *rand.Rand, cover bool) (any, error) {
	return gt.sampler.sample(rng, cover)
}

const genStream = 0x67656e6572617465 // "generate"

func newGenerator(cat *catalog.Catalog, spec *GenerateSpec) (*generator, error) {
	g := &generator{
		cat:  cat,
		spec: spec,
		rng:  rand.New(rand.NewPCG(spec.Seed, genStream)),
		t0:   time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	names := spec.Types
	if len(names) == 0 {
		names = cat.Names()
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("events.generate: the catalog %s has no event types", cat.Dir)
	}
	// Generated values satisfy every format, asserted by the catalog or not:
	// consumers (the decoders of `evtool gen go` among them) check formats
	// (format.ValueSampler).
	opts := format.SampleOptions{FormatEdges: spec.FormatEdges}
	for _, name := range names {
		typ, pin, _ := strings.Cut(name, "@v")
		t := cat.Lookup(typ)
		if t == nil {
			return nil, fmt.Errorf("events.generate.types: %q is not a type of the catalog %s (it has %s)", typ, cat.Dir, strings.Join(cat.Names(), ", "))
		}
		v := t.Latest()
		if pin != "" {
			n, _ := strconv.Atoi(pin)
			if v = t.Version(n); v == nil {
				return nil, fmt.Errorf("events.generate.types: %s has no version %s (it has v1..v%d)", typ, pin, len(t.Versions))
			}
		}
		if v == nil || v.Compiled == nil {
			return nil, fmt.Errorf("events.generate.types: %s has no usable schema", typ)
		}
		fs, err := newFormatSampler(v.Compiled, spec.Seed, opts, isFormatted(v))
		if err != nil {
			return nil, fmt.Errorf("events.generate.types: %s v%d: %v", typ, v.Number, err)
		}
		gt := genType{sampler: fs}
		gt.t, gt.v, gt.key, gt.source = t, v, keyOf(t), "/evtool/replay"
		if t.Meta.Source != "" {
			ps, ok := formats.PatternSampler()
			if !ok {
				return nil, fmt.Errorf("events.generate: cannot make a source for %s matching %q: no format samples patterns", typ, t.Meta.Source)
			}
			src, err := ps.MatchString(t.Meta.Source, g.rng)
			if err != nil {
				return nil, fmt.Errorf("events.generate: cannot make a source for %s matching %q: %v", typ, t.Meta.Source, err)
			}
			gt.source = src
		}
		g.types = append(g.types, gt)
	}
	if err := g.makeKeys(); err != nil {
		return nil, err
	}
	return g, nil
}

// makeKeys picks the partition keys: values sampled for the key property
// of the first type whose key is in its data, else key-1, key-2, ...
func (g *generator) makeKeys() error {
	n := g.spec.Keys
	var from *genType
	for i := range g.types {
		if g.types[i].key.pointer != "" {
			from = &g.types[i]
			break
		}
	}
	if from == nil {
		for i := range n {
			g.keys = append(g.keys, fmt.Sprintf("key-%d", i+1))
		}
		return nil
	}
	seen := map[string]bool{}
	for attempt := 0; len(g.keys) < n && attempt < 20*n+100; attempt++ {
		doc, err := from.sample(g.rng, false)
		if err != nil {
			return fmt.Errorf("events.generate: cannot generate data for %s v%d: %v", from.t.Name, from.v.Number, err)
		}
		v, ok := lookup(doc, from.key.pointer)
		if !ok {
			// An optional key property: make one up.
			v = fmt.Sprintf("key-%d", len(g.keys)+1)
		}
		switch v.(type) {
		case string, json.Number:
		default:
			return fmt.Errorf("events.generate: the partition key %s of %s is %s, not a string or number", from.key.pointer, from.t.Name, kindOf(v))
		}
		k := fmt.Sprint(v)
		if k == "" {
			// An empty key is no record key, and the Protobuf JSON
			// mapping leaves an empty string out of the data.
			continue
		}
		if !seen[k] {
			seen[k] = true
			g.keys = append(g.keys, v)
		}
	}
	if len(g.keys) < n {
		return fmt.Errorf("events.generate: only %d distinct values of %s (the partition key of %s) could be generated, not %d: lower events.generate.keys", len(g.keys), from.key.pointer, from.t.Name, n)
	}
	return nil
}

func (g *generator) name() string { return "generated events" }
func (g *generator) close() error { return nil }

func (g *generator) next() (rawEvent, bool, error) {
	if g.i >= g.spec.Count {
		return rawEvent{}, false, nil
	}
	i := g.i
	g.i++
	gt := &g.types[g.rng.IntN(len(g.types))]
	key := g.keys[g.rng.IntN(len(g.keys))]
	var data any
	var lastErr error
	binary := ""
	for attempt := 0; attempt < 8; attempt++ {
		doc, err := gt.sample(g.rng, true)
		if err != nil {
			lastErr = err
			continue
		}
		if gt.key.pointer != "" {
			if !setPointer(doc, gt.key.pointer, key) {
				lastErr = fmt.Errorf("cannot set the partition key %s in the generated data", gt.key.pointer)
				continue
			}
			if gt.sampler.values != nil {
				if err := gt.sampler.values.ValidateValue(doc); err != nil {
					lastErr = fmt.Errorf("the key %v is not valid for %s at %s: %v", key, gt.t.Name, gt.key.pointer, err)
					continue
				}
			}
		}
		if gt.sampler.binary {
			if binary, err = gt.sampler.encode(doc); err != nil {
				lastErr = fmt.Errorf("the generated data (key %v at %s) is not a datum of %s v%d: %v", key, gt.key.pointer, gt.t.Name, gt.v.Number, err)
				continue
			}
		}
		data, lastErr = doc, nil
		break
	}
	if lastErr != nil {
		return rawEvent{}, false, fmt.Errorf("events.generate: event %d (%s v%d): %v", i, gt.t.Name, gt.v.Number, lastErr)
	}
	ev := map[string]any{
		"specversion":     "1.0",
		"id":              g.uuid(),
		"source":          gt.source,
		"type":            gt.t.Name,
		"time":            g.t0.Add(time.Duration(i) * time.Second).Format(time.RFC3339),
		"datacontenttype": "application/json",
		"dataschema":      g.cat.DataSchema(gt.t.Name, gt.v.Number),
		"data":            data,
	}
	if gt.sampler.binary {
		// Avro and Protobuf events carry the binary encoding.
		delete(ev, "data")
		ev["datacontenttype"] = gt.v.Compiled.DefaultContentType()
		ev["data_base64"] = binary
	}
	if gt.key.subject {
		ev["subject"] = fmt.Sprint(key)
	}
	raw, err := json.Marshal(ev)
	if err != nil {
		return rawEvent{}, false, fmt.Errorf("events.generate: event %d: %v", i, err)
	}
	return rawEvent{Raw: raw}, true, nil
}

func (g *generator) uuid() string {
	var b [16]byte
	for i := 0; i < 16; i += 8 {
		x := g.rng.Uint64()
		for j := range 8 {
			b[i+j] = byte(x >> (8 * j))
		}
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// setPointer sets the member at pointer in doc, whose parent must exist
// and be an object.
func setPointer(doc any, pointer string, v any) bool {
	i := strings.LastIndexByte(pointer, '/')
	if i < 0 {
		return false
	}
	parent, ok := lookup(doc, pointer[:i])
	if !ok {
		return false
	}
	obj, ok := parent.(map[string]any)
	if !ok {
		return false
	}
	obj[unescapeToken(pointer[i+1:])] = v
	return true
}

func unescapeToken(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
}
