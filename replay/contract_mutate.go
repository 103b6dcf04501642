package replay

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"hash/fnv"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/envelope"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
	"github.com/evtool/evtool/internal/jsonpos"
)

// This file is the mutation of a contract run: every field of the events'
// data outside a set the consumer declares it reads is removed (where the
// schema allows it) or replaced by another value valid under the schema,
// in every event, the same way in every run (a field's mutation in an
// event depends only on the seed, the event's id and the field), so that
// runs over subsets of the fields can be compared when shrinking.
//
// A field is a JSON pointer into the data's JSON form (Avro's JSON
// encoding, Protobuf's JSON mapping) that ends at a value other than a
// non-empty object: arrays are fields as a whole.

// Field is one field of a type's data.
type Field struct {
	Type    string `json:"type"`
	Pointer string `json:"pointer"`
}

func (f Field) String() string { return f.Pointer + " (" + f.Type + ")" }

// samplesPerVersion is how many sampled values of a version replacement
// values are taken from.
const samplesPerVersion = 8

// maxChecksPerEvent bounds the validations of one event's data while
// mutating it: each checks the whole data, so an event of many fields
// would otherwise cost their square. Fields left when it is spent are
// kept as they are (and counted).
const maxChecksPerEvent = 512

// fieldMutation mutates the fields of a set in raw events. It is safe for
// concurrent use (the producer converts events on several goroutines).
type fieldMutation struct {
	m    *Mutator
	seed uint64
	set  map[Field]bool
	// samples holds each version's sampled values (*versionSamples).
	samples sync.Map
	// mutated and kept count field mutations done and fields that had no
	// valid other value.
	mutated, kept atomic.Int64
}

// versionSamples holds what mutating the data of one version needs: the
// sampled values, and for a format whose sampler makes values (JSON
// Schema) that sampler, which checks a mutated value against the version
// with every format asserted (consumers check formats even where the
// catalog only annotates them: a mutated value must pass their decoders
// too; format.ValueSampler).
type versionSamples struct {
	once   sync.Once
	values []any
	strict format.ValueValidator
}

func newFieldMutation(m *Mutator, seed uint64, fields []Field) *fieldMutation {
	fm := &fieldMutation{m: m, seed: seed, set: make(map[Field]bool, len(fields))}
	for _, f := range fields {
		fm.set[f] = true
	}
	return fm
}

// eventData is an event's data decoded through its version's format.
type eventData struct {
	ev     map[string]any
	ver    *catalog.Version
	ct     string
	b64    bool
	framed bool
	id     uint32
	value  any
	// checks counts the validations spent on mutating it.
	checks int
}

// decodeEventData reads a CloudEvent in the JSON format and the JSON form
// of its data; ok is false for an event whose data cannot be read through
// a version of the catalog (left alone).
func (m *Mutator) decodeEventData(text []byte) (*eventData, bool) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	var ev map[string]any
	if dec.Decode(&ev) != nil || ev == nil {
		return nil, false
	}
	typ, _ := ev["type"].(string)
	ds, _ := ev["dataschema"].(string)
	ver := m.version(typ, ds)
	if ver == nil || ver.Compiled == nil {
		return nil, false
	}
	ed := &eventData{ev: ev, ver: ver, ct: format.ContentTypeJSON}
	if ct, _ := ev["datacontenttype"].(string); ct != "" {
		ed.ct = ct
	}
	var data []byte
	if s, ok := ev["data_base64"].(string); ok {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, false
		}
		data, ed.b64 = b, true
	} else if d, ok := ev["data"]; ok {
		if format.IsJSON(ed.ct) {
			b, err := json.Marshal(d)
			if err != nil {
				return nil, false
			}
			data = b
		} else if s, ok := d.(string); ok {
			data = []byte(s)
		} else {
			return nil, false
		}
	} else {
		return nil, false
	}
	payload := data
	if !format.IsJSON(ed.ct) {
		payload, ed.id, ed.framed = envelope.DataFrame(ver.Compiled, m.framing(ver), data)
	}
	v, err := ver.Compiled.DecodeValue(payload, ed.ct)
	if err != nil {
		return nil, false
	}
	ed.value = v
	return ed, true
}

// encode writes the (mutated) value back into the event's text.
func (ed *eventData) encode() ([]byte, error) {
	b, err := ed.ver.Compiled.EncodeValue(ed.value, ed.ct)
	if err != nil {
		return nil, err
	}
	if ed.framed {
		b = envelope.FrameData(ed.ver.Compiled, ed.id, b)
	}
	switch {
	case ed.b64:
		ed.ev["data_base64"] = base64.StdEncoding.EncodeToString(b)
	case format.IsJSON(ed.ct):
		ed.ev["data"] = json.RawMessage(b)
	default:
		ed.ev["data"] = string(b)
	}
	return json.Marshal(ed.ev)
}

// leaves calls fn with the pointer of every field of v.
//
// An array whose items are all non-empty objects is not one field: its
// items' fields are, under the token "-" (every item), as contracts write
// them (/lines/-/sku), so a consumer that reads /lines/-/qty while its
// contract lists only /lines/-/sku is caught. Other arrays are fields as
// a whole. fn may be called more than once with a pointer.
func leaves(v any, prefix string, fn func(ptr string)) {
	if arr, ok := v.([]any); ok && prefix != "" && objectItems(arr) {
		for _, x := range arr {
			leaves(x, prefix+"/-", fn)
		}
		return
	}
	obj, ok := v.(map[string]any)
	if !ok || len(obj) == 0 {
		if prefix != "" {
			fn(prefix)
		}
		return
	}
	for k, x := range obj {
		leaves(x, prefix+"/"+jsonpos.Escape(k), fn)
	}
}

// objectItems reports whether arr has items and every one is a non-empty
// object.
func objectItems(arr []any) bool {
	for _, x := range arr {
		if obj, ok := x.(map[string]any); !ok || len(obj) == 0 {
			return false
		}
	}
	return len(arr) > 0
}

// expandItems calls fn with every concrete pointer a field's pointer
// names in v: each "-" token stands for every index of the array there.
func expandItems(v any, toks []string, prefix string, fn func(ptr string)) {
	if len(toks) == 0 {
		fn(prefix)
		return
	}
	switch x := v.(type) {
	case map[string]any:
		if next, ok := x[toks[0]]; ok {
			expandItems(next, toks[1:], prefix+"/"+jsonpos.Escape(toks[0]), fn)
		}
	case []any:
		if toks[0] != "-" {
			return
		}
		for i, item := range x {
			expandItems(item, toks[1:], prefix+"/"+strconv.Itoa(i), fn)
		}
	}
}

// apply mutates the fields of the set in one raw event; an event it cannot
// read is produced as it is, and a nil mutation changes nothing.
func (fm *fieldMutation) apply(raw rawEvent) rawEvent {
	if fm == nil || raw.Err != nil || len(fm.set) == 0 {
		return raw
	}
	ed, ok := fm.m.decodeEventData(raw.Raw)
	if !ok {
		return raw
	}
	typ := ed.ver.Type
	var ptrs []string
	leaves(ed.value, "", func(p string) {
		if fm.set[Field{typ, p}] {
			ptrs = append(ptrs, p)
		}
	})
	if len(ptrs) == 0 {
		return raw
	}
	sort.Strings(ptrs)
	ptrs = slices.Compact(ptrs)
	id, _ := ed.ev["id"].(string)
	changed := false
	for _, p := range ptrs {
		var concrete []string
		expandItems(ed.value, jsonpos.Split(p), "", func(c string) { concrete = append(concrete, c) })
		for _, c := range concrete {
			if fm.mutate(ed, id, c, p) {
				changed = true
				fm.mutated.Add(1)
			} else {
				fm.kept.Add(1)
			}
		}
	}
	if !changed {
		return raw
	}
	text, err := ed.encode()
	if err != nil {
		return raw
	}
	raw.Raw = text
	return raw
}

// valid reports whether the version accepts the value as it is now.
func (ed *eventData) valid() bool {
	_, err := ed.ver.Compiled.EncodeValue(ed.value, ed.ct)
	return err == nil
}

// valid reports whether the event's version accepts its value as it is
// now, every format asserted (JSON Schema).
func (fm *fieldMutation) valid(ed *eventData, vs *versionSamples) bool {
	if ed.checks++; ed.checks > maxChecksPerEvent {
		return false
	}
	if vs.strict != nil {
		return vs.strict.ValidateValue(ed.value) == nil
	}
	return ed.valid()
}

// mutate removes or replaces the value at ptr (a concrete pointer: array
// indices where the field has "-"); false when no other valid value was
// found (the value is left as it was). field is the field's pointer:
// replacements are looked up in the samples at its first item.
func (fm *fieldMutation) mutate(ed *eventData, id, ptr, field string) bool {
	toks := jsonpos.Split(ptr)
	var parent map[string]any
	var cur any = ed.value
	for _, t := range toks {
		if arr, ok := cur.([]any); ok {
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(arr) {
				return false
			}
			parent, cur = nil, arr[i]
			continue
		}
		obj, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		parent = obj
		if cur, ok = obj[t]; !ok {
			return false
		}
	}
	if parent == nil {
		return false
	}
	last := toks[len(toks)-1]
	vs := fm.versionSamples(ed.ver)
	delete(parent, last)
	if fm.valid(ed, vs) {
		return true
	}
	h := fieldSeed(fm.seed, id, ptr)
	was := canonicalJSON(cur)
	try := func(v any) bool {
		if canonicalJSON(v) == was {
			return false
		}
		parent[last] = v
		return fm.valid(ed, vs)
	}
	samples := vs.values
	for i := range samples {
		if v, ok := lookup(samples[(int(h%uint64(len(samples)))+i)%len(samples)], firstItem(field)); ok && try(deepCopy(v)) {
			return true
		}
	}
	for _, v := range perturbations(cur, h) {
		if try(v) {
			return true
		}
	}
	parent[last] = cur
	return false
}

// versionSamples returns the sampled values of a version, made once:
// from the format's sampler when it makes values (JSON Schema: from the
// version with formats asserted, in their canonical forms, see
// format.SampleOptions); for the other formats from the compiled
// schema's SampleValue.
func (fm *fieldMutation) versionSamples(ver *catalog.Version) *versionSamples {
	x, _ := fm.samples.LoadOrStore(ver, &versionSamples{})
	vs := x.(*versionSamples)
	vs.once.Do(func() {
		if !isFormatted(ver) && ver.Compiled != nil {
			cs, err := formats.Of(ver.Compiled).Sampler(ver.Compiled, fm.seed, format.SampleOptions{})
			if sampler, ok := cs.(format.ValueSampler); ok && err == nil {
				vs.strict = sampler
				vs.values, _ = sampler.Samples(samplesPerVersion)
				return
			}
		}
		for i := range uint64(samplesPerVersion) {
			if v, err := ver.Compiled.SampleValue(fm.seed + i); err == nil {
				vs.values = append(vs.values, v)
			}
		}
	})
	return vs
}

// perturbations are values near cur, for fields the samples give no other
// valid value for (a sampled enum of one value, a pattern the samples
// happen to repeat).
func perturbations(cur any, h uint64) []any {
	switch x := cur.(type) {
	case string:
		return []any{x + "-" + strconv.FormatUint(h%1000, 10), "", strings.ToUpper(x), strings.ToLower(x), x + "x"}
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return []any{json.Number(strconv.FormatInt(i+1, 10)), json.Number(strconv.FormatInt(i-1, 10)), json.Number("0")}
		}
		if f, err := x.Float64(); err == nil {
			return []any{json.Number(strconv.FormatFloat(f+1, 'g', -1, 64)), json.Number(strconv.FormatFloat(f/2, 'g', -1, 64)), json.Number("0")}
		}
	case bool:
		return []any{!x}
	case []any:
		if len(x) > 0 {
			return []any{[]any{}, x[:len(x)-1]}
		}
	case nil:
		return []any{"", json.Number("0"), false}
	}
	return nil
}

func fieldSeed(seed uint64, id, ptr string) uint64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	h.Write([]byte(id))
	h.Write([]byte{0})
	h.Write([]byte(ptr))
	return h.Sum64()
}

func canonicalJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(x))
		for k, e := range x {
			c[k] = deepCopy(e)
		}
		return c
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = deepCopy(e)
		}
		return c
	}
	return v
}

// firstItem is a field's pointer with every "-" (every item) read as the
// first item, where a sampled value holds one.
func firstItem(field string) string {
	return strings.ReplaceAll(field+"/", "/-/", "/0/")[:len(field)]
}
