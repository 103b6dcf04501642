package sample

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/evtool/evtool/internal/fuzzcost"
	"testing"
	"time"

	"github.com/evtool/evtool/internal/jsonvalue"
)

var unsatSeeds = []string{
	`false`,
	`{"type":"number","minimum":5,"maximum":1}`,
	`{"allOf":[{"type":"string"},{"type":"integer"}]}`,
	`{"type":"object","required":["next"],"properties":{"next":{"$ref":"#"}}}`,
	`{"type":"array","minItems":1000000000}`,
	`{"type":"string","minLength":1000000000}`,
	`{"type":"number","multipleOf":1e-400,"minimum":1e400}`,
	`{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"anyOf":[{"$ref":"#/$defs/a"},{"type":"array","items":{"$ref":"#/$defs/a"},"minItems":2}]}},"$ref":"#/$defs/a"}`,
	`{"type":"string","pattern":"^(a|b)*c{3,7}(?:d+|e?)$","minLength":30,"maxLength":31}`,
	`{"propertyNames":{"maxLength":1},"minProperties":40}`,
	`{"not":{"not":{"type":"integer","not":{"multipleOf":2}}}}`,
}

// checkSchema compiles src; if it compiles, Generate must return a value
// the schema accepts or an *UnsatisfiableError naming a keyword, within a
// time budget, and Variants must not panic.
func checkSchema(t *testing.T, src string, assertFormat bool) {
	// a hang must surface as a failure with the input, not stall the fuzzer
	watchdog := time.AfterFunc(20*time.Second, func() {
		panic(fmt.Sprintf("sample: no result after 20s for %s (assertFormat=%v)", src, assertFormat))
	})
	defer watchdog.Stop()
	s, err := compileString(src, assertFormat)
	if err != nil {
		return
	}
	start := time.Now()
	v, err := New(s, Options{Budget: 20000}).Generate(rng(uint64(len(src))))
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Generate took %v for %s", d, src)
	}
	if err != nil {
		var ue *UnsatisfiableError
		if !errors.As(err, &ue) || ue.Keyword == "" {
			t.Fatalf("error %v (%T) is not an *UnsatisfiableError naming a keyword", err, err)
		}
		return
	}
	if verr := s.Validate(v); verr != nil {
		t.Fatalf("invalid instance %s for %s: %v", toJSON(v), src, verr)
	}
	start = time.Now()
	_ = Variants(v, s, s, rng(1), 32)
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Variants took %v for %s", d, src)
	}
}

// FuzzGenerate feeds arbitrary small schema documents.
func FuzzGenerate(f *testing.F) {
	for _, c := range genCases {
		if !c.format {
			f.Add(c.schema)
		}
	}
	for _, s := range unsatSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		fuzzcost.Default().Check(t, len(src), func() {
			if len(src) > 2048 {
				return
			}
			checkSchema(t, src, false)
		})
	})
}

// FuzzGenerateStructured builds schemas from a keyword grammar driven by the
// fuzz input, so that nearly every input compiles and keyword interactions
// get explored.
func FuzzGenerateStructured(f *testing.F) {
	for _, seed := range []string{"", "\x02\x05\x01\x03", "\x07\x07\x07\x07\x07\x07", "\x10\x20\x30\x40\x50\x60\x70\x80\x90",
		"\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xf7\xf6\xf5\xf4", "\x03\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\xcc\xdd\xee"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzcost.Default().Check(t, len(data), func() {
			if len(data) > 512 {
				return
			}
			b := &byteSrc{data: data}
			doc := b.schema(0)
			if m, ok := doc.(map[string]any); ok && b.next()%3 == 0 {
				m["$defs"] = map[string]any{"d": b.schema(1)}
			}
			src, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			checkSchema(t, string(src), b.next()%2 == 0)
		})
	})
}

type byteSrc struct {
	data []byte
	i    int
}

func (b *byteSrc) next() int {
	if b.i >= len(b.data) {
		b.i++
		return b.i % 7
	}
	c := b.data[b.i]
	b.i++
	return int(c)
}

func (b *byteSrc) pick(xs ...any) any { return xs[b.next()%len(xs)] }

var (
	fzTypes    = []any{"null", "boolean", "integer", "number", "string", "array", "object"}
	fzNames    = []any{"a", "b", "c", "x-1"}
	fzPatterns = []any{"^a", "b$", "^[a-c]{1,3}$", "[0-9]", "^x-", "(foo|bar)+", "^.{2}$", "\\d{2,}", "^[^a]*$"}
	fzFormats  = []any{"date", "date-time", "email", "uuid", "ipv4", "uri", "hostname", "duration", "regex"}
	fzNumbers  = []any{0, 1, -1, 2, 3, 0.5, 1.5, 0.01, 10, 100, -2.5, 1e20}
	fzValues   = []any{nil, true, false, 0, 1, 1.5, "", "a", "b", []any{}, []any{1}, map[string]any{}, map[string]any{"a": 1}}
)

func (b *byteSrc) schema(depth int) any {
	op := b.next()
	if op%11 == 0 {
		return op%2 == 0
	}
	m := map[string]any{}
	n := 1 + b.next()%4
	if depth >= 3 {
		n = 1
	}
	for k := 0; k < n; k++ {
		sub := func() any {
			if depth >= 3 {
				return b.pick(true, false, map[string]any{"type": "integer"})
			}
			return b.schema(depth + 1)
		}
		subs := func() []any {
			out := make([]any, 1+b.next()%3)
			for i := range out {
				out[i] = sub()
			}
			return out
		}
		small := func() int { return b.next() % 5 }
		switch b.next() % 38 {
		case 0:
			m["type"] = b.pick(fzTypes...)
		case 1:
			m["type"] = []any{b.pick(fzTypes...), b.pick(fzTypes...)}
		case 2:
			m["enum"] = []any{b.pick(fzValues...), b.pick(fzValues...), b.pick(fzValues...)}
		case 3:
			m["const"] = b.pick(fzValues...)
		case 4:
			m["minimum"] = b.pick(fzNumbers...)
		case 5:
			m["maximum"] = b.pick(fzNumbers...)
		case 6:
			m["exclusiveMinimum"] = b.pick(fzNumbers...)
		case 7:
			m["exclusiveMaximum"] = b.pick(fzNumbers...)
		case 8:
			m["multipleOf"] = b.pick(0.5, 0.01, 2, 3, 1.5, 0.3, 7)
		case 9:
			m["minLength"] = small()
		case 10:
			m["maxLength"] = small()
		case 11:
			m["pattern"] = b.pick(fzPatterns...)
		case 12:
			m["format"] = b.pick(fzFormats...)
		case 13:
			m["properties"] = map[string]any{b.pick(fzNames...).(string): sub(), b.pick(fzNames...).(string): sub()}
		case 14:
			m["required"] = []any{b.pick(fzNames...), b.pick(fzNames...)}
		case 15:
			m["additionalProperties"] = sub()
		case 16:
			m["patternProperties"] = map[string]any{b.pick(fzPatterns...).(string): sub()}
		case 17:
			m["propertyNames"] = sub()
		case 18:
			m["minProperties"] = small()
		case 19:
			m["maxProperties"] = small()
		case 20:
			m["dependentRequired"] = map[string]any{b.pick(fzNames...).(string): []any{b.pick(fzNames...)}}
		case 21:
			m["dependentSchemas"] = map[string]any{b.pick(fzNames...).(string): sub()}
		case 22:
			m["items"] = sub()
		case 23:
			m["prefixItems"] = subs()
		case 24:
			m["contains"] = sub()
		case 25:
			m["minContains"] = small()
		case 26:
			m["maxContains"] = small()
		case 27:
			m["uniqueItems"] = b.next()%2 == 0
		case 28:
			m["minItems"] = small()
		case 29:
			m["maxItems"] = small()
		case 30:
			m["allOf"] = subs()
		case 31:
			m["anyOf"] = subs()
		case 32:
			m["oneOf"] = subs()
		case 33:
			m["not"] = sub()
		case 34:
			m["if"], m["then"], m["else"] = sub(), sub(), sub()
		case 35:
			m["$ref"] = b.pick("#", "#/$defs/d")
		case 36:
			m["unevaluatedProperties"] = sub()
		case 37:
			m["unevaluatedItems"] = sub()
		}
	}
	return m
}

// TestRandomSchemas measures how often the sampler gives up on a schema
// for which a small pool of ordinary JSON values holds a valid instance.
// Schemas come from the same grammar as FuzzGenerateStructured.
func TestRandomSchemas(t *testing.T) {
	n := 6000
	if testing.Short() {
		n = 1000
	}
	pool := append([]any{}, fzValues...)
	pool = append(pool, "aa", "foo", "x-1", "2020-01-01", 2, 3, -1, 0.5, 100, []any{1, 2}, []any{"a", "b"},
		map[string]any{"a": 1, "b": 2}, map[string]any{"x-1": true}, []any{[]any{}}, map[string]any{"b": "a"},
		map[string]any{"c": []any{}})
	r := rng(77)
	compiled, gaveUp, missed := 0, 0, 0
	for i := 0; i < n; i++ {
		data := make([]byte, 10+r.IntN(150))
		for k := range data {
			data[k] = byte(r.IntN(256))
		}
		src, err := json.Marshal((&byteSrc{data: data}).schema(0))
		if err != nil {
			t.Fatal(err)
		}
		s, err := compileString(string(src), false)
		if err != nil {
			continue
		}
		compiled++
		v, err := New(s, Options{}).Generate(rng(uint64(i)))
		if err == nil {
			if verr := s.Validate(v); verr != nil {
				t.Fatalf("invalid instance %s for %s: %v", toJSON(v), src, verr)
			}
			continue
		}
		gaveUp++
		for _, p := range pool {
			if s.Validate(jsonvalue.Normalize(p)) == nil {
				missed++
				t.Logf("gave up on %s (%v), but %s is valid", src, err, toJSON(p))
				break
			}
		}
	}
	t.Logf("%d schemas compiled; the sampler gave up on %d; for %d of those a pool value is valid", compiled, gaveUp, missed)
	if missed > 2 {
		t.Errorf("sampler missed %d satisfiable schemas", missed)
	}
}
