// Package sample generates JSON instances that are valid under a compiled
// JSON Schema (github.com/santhosh-tekuri/jsonschema/v6).
//
// It serves three callers: the compatibility gate's witness search (documents
// valid for a writer schema that a reader schema rejects), `evtool replay`
// (generated events) and codegen's differential tests.
//
// Generated values use the representation the validator accepts:
// map[string]any, []any, string, bool, nil and json.Number for every number
// (so big and exact decimal numbers survive a round trip through JSON).
//
// The generator is a constructive search: it walks the conjunction of schemas
// that apply to a value (allOf, $ref, $dynamicRef, the chosen anyOf/oneOf
// branch, if/then/else), merges their assertions (types, bounds with big.Rat
// arithmetic, lengths, patterns via regexp/syntax, formats, properties,
// items, contains, ...) and builds a value. Every value it returns has been
// validated with Schema.Validate; when it cannot find one within its retry and
// step budgets it returns an *UnsatisfiableError naming the keyword.
//
// Format assertions are only visible in a compiled schema when it was compiled
// with format assertion (Compiler.AssertFormat, or draft 7 and older, which
// always assert). Compile with AssertFormat to get format-shaped strings for
// formats that are otherwise annotations.
package sample

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/evtool/evtool/internal/jsonvalue"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema/kind"
)

// Options tunes generation. The zero value is usable.
type Options struct {
	// MaxDepth is the nesting depth beyond which the generator stops adding
	// optional content: objects get only the properties they need, arrays
	// their minimum length, and scalar branches are preferred. 0 means 5.
	MaxDepth int
	// MaxItems caps how many array items the generator adds beyond what
	// minItems and minContains require (a tuple's prefixItems may exceed it
	// by one). 0 means 4.
	MaxItems int
	// Boundary prefers boundary values: minimum/maximum (exclusive bounds
	// plus or minus a small step), minLength/maxLength, minItems/maxItems,
	// the first or last enum value, no optional properties or all of them,
	// and extreme numbers (beyond 2^53, near the float64 limits) when a
	// number is unbounded.
	Boundary bool
	// Attempts bounds how many complete candidates Generate builds before
	// giving up. 0 means 12.
	Attempts int
	// Budget bounds the work of one Generate call, counted in schema nodes
	// visited and candidates built. 0 means 40000.
	Budget int
	// Canonical makes format values take their most common form, which
	// typical parsers accept: date-time and time in UTC with upper-case T
	// and Z (RFC 3339 also allows a lower-case t, which Go's time.Parse
	// refuses, and offsets), e-mail addresses without tags. Without it they
	// take every valid form, as witness search wants.
	Canonical bool
}

func (o Options) withDefaults() Options {
	if o.MaxDepth <= 0 {
		o.MaxDepth = 5
	}
	if o.MaxItems <= 0 {
		o.MaxItems = 4
	}
	if o.Attempts <= 0 {
		o.Attempts = 12
	}
	if o.Budget <= 0 {
		o.Budget = 40000
	}
	return o
}

// UnsatisfiableError reports that the sampler found no instance for a schema.
// Location is the absolute location of the (sub)schema, Keyword the keyword it
// could not satisfy: a JSON Schema keyword, "false" for a false schema, or
// "budget" when the step budget ran out before any constraint failed. It
// does not prove that the schema is unsatisfiable, only that the sampler
// gave up: a schema with contradictory numeric bounds (say) is reported
// only if no other JSON type satisfies it.
type UnsatisfiableError struct {
	Location string
	Keyword  string
	Reason   string

	noRetry   bool // retrying with other random choices cannot help (depth limit)
	exhausted bool // the step budget ran out
}

func (e *UnsatisfiableError) Error() string {
	msg := fmt.Sprintf("sample: cannot satisfy %q at %s", e.Keyword, e.Location)
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

// Sampler generates instances of one compiled schema. It is safe for
// concurrent use; each call takes its own *rand.Rand.
type Sampler struct {
	root *jsonschema.Schema
	opts Options
	re   *regexCache
	nest int // lexicalDepth of root: instances this deep need no recursion
}

// New returns a sampler for s.
func New(s *jsonschema.Schema, opts Options) *Sampler {
	return &Sampler{root: s, opts: opts.withDefaults(), re: newRegexCache(), nest: lexicalDepth(s)}
}

// Generate returns one instance valid under the schema. It validates its own
// output with Schema.Validate and retries a bounded number of times; when no
// attempt yields a valid instance it returns an *UnsatisfiableError naming the
// schema location and keyword it could not satisfy.
func (sp *Sampler) Generate(rng *rand.Rand) (any, error) {
	return sp.generate(rng, sp.opts)
}

func (sp *Sampler) generate(rng *rand.Rand, opts Options) (any, error) {
	return sp.generateOnly(rng, opts, 0)
}

// generateOnly is generate restricted to the JSON types in mask (0: any).
func (sp *Sampler) generateOnly(rng *rand.Rand, opts Options, mask int) (any, error) {
	g := newGen(sp, rng, opts)
	g.only = mask
	root := rootNode(sp.root)
	var genErr *UnsatisfiableError
	var valErr error
	for attempt := 0; attempt < opts.Attempts && !g.exhausted(); attempt++ {
		v, err := g.value(conj{pos: []node{root}}, 0)
		if err != nil {
			var ue *UnsatisfiableError
			if errors.As(err, &ue) && !ue.exhausted {
				genErr = ue
			}
			continue
		}
		verr := sp.root.Validate(v)
		if verr == nil {
			return v, nil
		}
		valErr = verr
	}
	var e *UnsatisfiableError
	switch {
	case genErr != nil:
		e = genErr
	case valErr != nil:
		e = fromValidationError(sp.root, valErr)
	case g.lastFail != nil:
		e = g.lastFail
	default:
		return nil, &UnsatisfiableError{Location: sp.root.Location, Keyword: "budget",
			Reason: "the step budget ran out before a candidate was complete"}
	}
	if g.exhausted() {
		e = &UnsatisfiableError{Location: e.Location, Keyword: e.Keyword,
			Reason: "the step budget ran out; last failure: " + e.Reason}
	}
	return nil, e
}

// Samples returns n instances of s, deterministically for a seed: the same
// schema, seed and options give the same values. Unless opts.Boundary is set,
// it mixes typical values with boundary values (every third sample). Values
// are distinct where the schema allows it. It fails with the first
// *UnsatisfiableError when not even one instance can be found.
func Samples(s *jsonschema.Schema, n int, seed int64, opts Options) ([]any, error) {
	if n <= 0 {
		return nil, nil
	}
	sp := New(s, opts)
	rng := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
	out := make([]any, 0, n)
	seen := map[string]bool{}
	var firstErr error
	for i := 0; len(out) < n && i < 3*n+4; i++ {
		o := sp.opts
		if i%3 == 2 {
			o.Boundary = true
		}
		v, err := sp.generate(rng, o)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			if len(out) == 0 && i >= 2 {
				return nil, firstErr
			}
			continue
		}
		key := canonical(v)
		if seen[key] && i < 2*n {
			continue
		}
		seen[key] = true
		out = append(out, v)
	}
	if len(out) == 0 {
		if firstErr == nil {
			firstErr = &UnsatisfiableError{Location: s.Location, Keyword: "budget"}
		}
		return nil, firstErr
	}
	// Pad with repeats when the schema has fewer distinct values than n.
	for i := 0; len(out) < n; i++ {
		out = append(out, jsonvalue.DeepCopy(out[i%len(out)]))
	}
	return out, nil
}

// canonical renders v as JSON with sorted keys (encoding/json sorts map keys).
func canonical(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(b)
}

// fromValidationError turns the first leaf cause of a validation error into an
// UnsatisfiableError.
func fromValidationError(root *jsonschema.Schema, err error) *UnsatisfiableError {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &UnsatisfiableError{Location: root.Location, Keyword: "unknown", Reason: err.Error()}
	}
	leaf := ve
	for len(leaf.Causes) > 0 {
		leaf = leaf.Causes[0]
	}
	kw := "unknown"
	switch k := leaf.ErrorKind.(type) {
	case nil:
	case *kind.FalseSchema:
		kw = "false"
	case *kind.RefCycle:
		kw = "$ref"
	case *kind.Not:
		kw = "not"
	default:
		if p := k.KeywordPath(); len(p) > 0 {
			kw = p[0]
		}
	}
	loc := leaf.SchemaURL
	if loc == "" {
		loc = root.Location
	}
	reason := strings.TrimSpace(leaf.Error())
	return &UnsatisfiableError{Location: loc, Keyword: kw, Reason: "generated instances keep failing: " + reason}
}
