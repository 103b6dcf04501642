package codegen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math/big"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/codegen/internal/rt"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/jsonschema/gogen"
	"github.com/evtool/evtool/format/jsonschema/sample"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// corpus lists the catalogs the tests generate code for: every directory
// of testdata/corpus, and the example catalog.
func corpus(t *testing.T) map[string]string {
	t.Helper()
	dirs := map[string]string{"orders": filepath.Join("..", "examples", "orders")}
	entries, err := os.ReadDir(filepath.Join("testdata", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			dirs[e.Name()] = filepath.Join("testdata", "corpus", e.Name())
		}
	}
	return dirs
}

func load(t *testing.T, dir string) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Load(dir)
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	return cat
}

// TestGolden compares the generated code of every corpus catalog with
// testdata/golden/<name>/<file>.golden (go test -run Golden -update
// rewrites them).
func TestGolden(t *testing.T) {
	for name, dir := range corpus(t) {
		t.Run(name, func(t *testing.T) {
			res, err := Generate(load(t, dir), Options{Package: "events"})
			if err != nil {
				t.Fatal(err)
			}
			goldenDir := filepath.Join("testdata", "golden", name)
			if *update {
				os.RemoveAll(goldenDir)
				if err := os.MkdirAll(goldenDir, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			want := map[string]bool{}
			for _, f := range res.Files {
				want[f.Name+".golden"] = true
				path := filepath.Join(goldenDir, f.Name+".golden")
				if *update {
					if err := os.WriteFile(path, f.Data, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				old, err := os.ReadFile(path)
				if err != nil {
					t.Errorf("%v (run go test ./codegen -run Golden -update)", err)
					continue
				}
				if !bytes.Equal(old, f.Data) {
					t.Errorf("%s differs from the generated code (run go test ./codegen -run Golden -update and review the diff)", path)
				}
			}
			entries, _ := os.ReadDir(goldenDir)
			for _, e := range entries {
				if !want[e.Name()] {
					t.Errorf("stale golden file %s", filepath.Join(goldenDir, e.Name()))
				}
			}
		})
	}
}

// TestDeterministic generates every catalog twice.
func TestDeterministic(t *testing.T) {
	for name, dir := range corpus(t) {
		a, err := Generate(load(t, dir), Options{Package: "x"})
		if err != nil {
			t.Fatal(err)
		}
		b, err := Generate(load(t, dir), Options{Package: "x"})
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Files) != len(b.Files) {
			t.Fatalf("%s: %d files then %d", name, len(a.Files), len(b.Files))
		}
		for i := range a.Files {
			if a.Files[i].Name != b.Files[i].Name || !bytes.Equal(a.Files[i].Data, b.Files[i].Data) {
				t.Errorf("%s: %s differs between two runs", name, a.Files[i].Name)
			}
		}
	}
}

func TestHeader(t *testing.T) {
	for name, dir := range corpus(t) {
		res, err := Generate(load(t, dir), Options{Package: "x"})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Files {
			if !bytes.HasPrefix(f.Data, []byte(Header+"\n")) {
				t.Errorf("%s/%s does not start with the header", name, f.Name)
			}
		}
	}
}

// TestNotes checks that untranslated keywords are reported, and only
// those.
func TestNotes(t *testing.T) {
	_, res, err := generate(load(t, filepath.Join("testdata", "corpus", "fallback")), Options{Package: "x"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, n := range res.Notes {
		_, ptr, _ := strings.Cut(n.Location, "#")
		got[ptr] = strings.Join(n.Keywords, ",")
	}
	want := map[string]string{
		"/properties/labels":   "patternProperties",
		"/properties/window":   "if/then/else",
		"/properties/notEmpty": "not",
		"/properties/entity":   "allOf",
		"/properties/pair":     "dependentRequired",
		"/properties/keys":     "propertyNames",
		"/properties/list":     "contains",
		"/properties/tuple":    "prefixItems",
		"/properties/narrowed": "$ref next to other keywords",
		"/properties/span":     `format "duration"`,
		"/properties/strict":   "unevaluatedProperties",
	}
	for ptr, kw := range want {
		if got[ptr] != kw {
			t.Errorf("note for %s: got %q, want %q", ptr, got[ptr], kw)
		}
	}
	if len(got) != len(want) {
		t.Errorf("notes: got %v", got)
	}
	for _, name := range []string{"orders", "scalars", "nested", "unions", "hostile"} {
		res, err := Generate(load(t, corpus(t)[name]), Options{Package: "x"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Notes) > 0 {
			t.Errorf("%s: unexpected notes %v", name, res.Notes)
		}
	}
}

// --- differential tests ---

// docReq is one document for the driver program.
type docReq struct {
	Key string `json:"key"`
	Doc []byte `json:"doc"`
}

type docRes struct {
	OK        bool            `json:"ok"`
	Err       string          `json:"err"`
	RangeOnly bool            `json:"rangeOnly"`
	Out       json.RawMessage `json:"out"`
}

type instance struct {
	key   string
	label string
	doc   []byte
	valid bool
	sch   *jsonschema.Schema
}

// TestGeneratedCode generates every corpus catalog into a temporary
// package inside the module, vets it, and runs a driver program that feeds
// instances to the generated UnmarshalJSON: valid ones from the sampler,
// mutations of them, and malformed documents. Generated code and santhosh
// (compiled with format assertions) must agree on accept/reject for every
// instance, except that generated code rejects, with ErrOutOfRange,
// numbers the Go types cannot hold. Accepted documents must marshal back
// to semantically equal JSON that the schema accepts.
func TestGeneratedCode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds generated code with the go command")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	tmp, err := os.MkdirTemp("testdata", "gen-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	root, _ := filepath.Abs("..")
	importBase := "github.com/evtool/evtool/codegen/" + filepath.ToSlash(tmp)

	var driver bytes.Buffer
	var insts []instance
	var imports, entries, ranges []string
	names := slices.Sorted(maps.Keys(corpus(t)))
	for i, name := range names {
		dir := corpus(t)[name]
		pkg := "c" + strconv.Itoa(i)
		cat := load(t, dir)
		g, res, err := generate(cat, Options{Package: pkg})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out := filepath.Join(tmp, name)
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Files {
			if err := os.WriteFile(filepath.Join(out, f.Name), f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		imports = append(imports, fmt.Sprintf("%s %q", pkg, importBase+"/"+name))
		ranges = append(ranges, fmt.Sprintf("%q: %s.ErrOutOfRange,", name, pkg))
		for _, et := range cat.Types {
			if et.Format != format.JSONSchema {
				continue
			}
			gt := g.eventType(et)
			schemas, err := gogen.Schemas(g.Catalog(), gt.Versions)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for i, v := range et.Versions {
				key := fmt.Sprintf("%s/%s/%d", name, et.Name, v.Number)
				entries = append(entries, fmt.Sprintf(`%q: func(b []byte) ([]byte, error) {
	var v %s.%s
	if err := v.UnmarshalJSON(b); err != nil {
		return nil, err
	}
	return v.MarshalJSON()
},`, key, pkg, gt.Base+"V"+strconv.Itoa(v.Number)))
				insts = append(insts, instances(t, key, v, schemas[i])...)
			}
		}
	}
	fmt.Fprintf(&driver, `package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"strings"

%s
)

var decoders = map[string]func([]byte) ([]byte, error){
%s
}

var rangeErrs = map[string]error{
%s
}

// rangeOnly reports whether every error in err is a range error.
func rangeOnly(err, target error) bool {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			if !rangeOnly(e, target) {
				return false
			}
		}
		return true
	}
	return errors.Is(err, target)
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<26)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req struct {
			Key string
			Doc []byte
		}
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			panic(err)
		}
		b, err := decoders[req.Key](req.Doc)
		res := struct {
			OK        bool            `+"`json:\"ok\"`"+`
			Err       string          `+"`json:\"err\"`"+`
			RangeOnly bool            `+"`json:\"rangeOnly\"`"+`
			Out       json.RawMessage `+"`json:\"out\"`"+`
		}{OK: err == nil, Out: b}
		if err != nil {
			res.Err = err.Error()
			res.RangeOnly = rangeOnly(err, rangeErrs[strings.SplitN(req.Key, "/", 2)[0]])
		}
		if err := out.Encode(res); err != nil {
			panic(err)
		}
	}
}
`, "\t"+strings.Join(imports, "\n\t"), strings.Join(entries, "\n"), strings.Join(ranges, "\n"))
	if err := os.MkdirAll(filepath.Join(tmp, "driver"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "driver", "main.go"), driver.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	rel := "./codegen/" + filepath.ToSlash(tmp)
	vet := exec.Command(goTool, "vet", rel+"/...")
	vet.Dir = root
	if out, err := vet.CombinedOutput(); err != nil {
		t.Fatalf("go vet of the generated code failed: %v\n%s", err, out)
	}

	var reqs bytes.Buffer
	enc := json.NewEncoder(&reqs)
	for _, in := range insts {
		if err := enc.Encode(docReq{Key: in.key, Doc: in.doc}); err != nil {
			t.Fatal(err)
		}
	}
	run := exec.Command(goTool, "run", rel+"/driver")
	run.Dir = root
	run.Stdin = &reqs
	var stderr bytes.Buffer
	run.Stderr = &stderr
	outBytes, err := run.Output()
	if err != nil {
		t.Fatalf("driver: %v\n%s", err, stderr.String())
	}
	sc := bufio.NewScanner(bytes.NewReader(outBytes))
	sc.Buffer(nil, 1<<26)
	i := 0
	stats := map[string][3]int{} // key -> accepted, rejected, range-limited
	for sc.Scan() {
		var res docRes
		if err := json.Unmarshal(sc.Bytes(), &res); err != nil {
			t.Fatal(err)
		}
		in := insts[i]
		i++
		st := stats[in.key]
		switch {
		case res.OK && in.valid:
			st[0]++
			checkRoundTrip(t, in, res.Out)
		case !res.OK && !in.valid:
			st[1]++
		case !res.OK && in.valid && res.RangeOnly:
			st[2]++
			if !hasOutOfRangeNumber(in.doc) && !(strings.Contains(res.Err, " inside exclusive") && hasInexactNumber(in.doc)) {
				t.Errorf("%s %s: rejected as out of range, but no number in it is beyond int64 or float64:\n%s\n%s", in.key, in.label, in.doc, res.Err)
			}
		case res.OK:
			t.Errorf("%s %s: generated code accepts what the schema rejects:\n%s\nschema: %v", in.key, in.label, in.doc, validate(in.sch, in.doc))
		default:
			t.Errorf("%s %s: generated code rejects what the schema accepts:\n%s\ngenerated: %s", in.key, in.label, in.doc, res.Err)
		}
		stats[in.key] = st
	}
	if i != len(insts) {
		t.Fatalf("driver answered %d of %d documents\n%s", i, len(insts), stderr.String())
	}
	for _, k := range slices.Sorted(maps.Keys(stats)) {
		st := stats[k]
		t.Logf("%-45s accepted %4d  rejected %4d  out of Go range %3d", k, st[0], st[1], st[2])
		if st[0] == 0 {
			t.Errorf("%s: no valid instance was accepted: the test proves nothing for it", k)
		}
	}
}

func validate(s *jsonschema.Schema, doc []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// hasOutOfRangeNumber reports whether doc holds an integer beyond int64 or
// a number beyond float64.
func hasOutOfRangeNumber(doc []byte) bool {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return false
	}
	var walk func(any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case map[string]any:
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		case []any:
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		case json.Number:
			if _, st := rt.ParseIntLit(string(x)); st == 2 {
				return true
			}
			f, err := strconv.ParseFloat(string(x), 64)
			// Overflow, or a non-zero value that underflows to zero.
			return err != nil || f == 0 && strings.ContainsAny(strings.FieldsFunc(string(x), func(r rune) bool { return r == 'e' || r == 'E' })[0], "123456789")
		}
		return false
	}
	return walk(v)
}

// hasInexactNumber reports whether a number of doc has no exact float64:
// the nearest one may be an exclusive bound the number itself is inside.
func hasInexactNumber(doc []byte) bool {
	found := false
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case json.Number:
			exact, ok := new(big.Rat).SetString(string(x))
			f, err := strconv.ParseFloat(string(x), 64)
			if ok && err == nil {
				if r := new(big.Rat).SetFloat64(f); r != nil && r.Cmp(exact) != 0 {
					found = true
				}
			}
		}
	}
	if v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc)); err == nil {
		walk(v)
	}
	return found
}

// instances returns the documents fed to one version.
func instances(t *testing.T, key string, v *catalog.Version, s *jsonschema.Schema) []instance {
	var out []instance
	add := func(label string, doc []byte) {
		// JSON text must be UTF-8 (RFC 8259): generated code rejects what
		// santhosh's decoder repairs, as the rest of evtool does
		valid := utf8.Valid(doc) && validate(s, doc) == nil
		out = append(out, instance{key: key, label: label, doc: doc, valid: valid, sch: s})
	}
	var valid []any
	for seed, opts := range []sample.Options{{}, {Boundary: true}, {MaxItems: 2}} {
		vals, err := sample.Samples(s, 30, int64(seed+1), opts)
		if err != nil {
			t.Logf("%s: sampler: %v", key, err)
			continue
		}
		valid = append(valid, vals...)
	}
	for _, ex := range v.Examples {
		add("example "+filepath.Base(ex.File), ex.Text)
	}
	rng := rand.New(rand.NewPCG(1, uint64(len(key))))
	for i, v := range valid {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		add(fmt.Sprintf("sample %d", i), b)
		for j := 0; j < 8; j++ {
			m := mutate(v, rng)
			mb, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			add(fmt.Sprintf("mutation %d of sample %d", j, i), mb)
		}
	}
	for _, bad := range []string{``, `{`, `[]`, `null`, `{"a":1,}`, `{"a" 1}`, "{\"a\":\"\xff\"}", `{} {}`, `{"a":tru}`, `{"a":01}`, `{"a":"\u00"}`, `"x`, `-`, `1.`, `{"a":[1,]}`} {
		add("malformed "+strconv.Quote(bad), []byte(bad))
	}
	return out
}

// mutate returns a copy of v with one random change.
func mutate(v any, rng *rand.Rand) any {
	v = deepCopy(v)
	type slot struct {
		get func() any
		set func(any)
	}
	var slots []slot
	var root any = v
	slots = append(slots, slot{func() any { return root }, func(x any) { root = x }})
	var walk func(x any)
	walk = func(x any) {
		switch c := x.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(c)) {
				k := k
				slots = append(slots, slot{func() any { return c[k] }, func(x any) { c[k] = x }})
				walk(c[k])
			}
		case []any:
			for i := range c {
				i := i
				slots = append(slots, slot{func() any { return c[i] }, func(x any) { c[i] = x }})
				walk(c[i])
			}
		}
	}
	walk(v)
	s := slots[rng.IntN(len(slots))]
	s.set(mutateValue(s.get(), rng))
	return root
}

func mutateValue(x any, rng *rand.Rand) any {
	others := []any{nil, true, false, json.Number("0"), json.Number("-1"), json.Number("1.5"), json.Number("9223372036854775808"),
		"", "x", "not a date", strings.Repeat("é", 40), []any{}, map[string]any{}, []any{json.Number("1"), json.Number("1")}}
	if rng.IntN(4) == 0 {
		return others[rng.IntN(len(others))]
	}
	switch c := x.(type) {
	case map[string]any:
		keys := slices.Sorted(maps.Keys(c))
		if len(keys) > 0 && rng.IntN(2) == 0 {
			delete(c, keys[rng.IntN(len(keys))])
		} else {
			c["zz"+strconv.Itoa(rng.IntN(3))] = others[rng.IntN(len(others))]
		}
		return c
	case []any:
		switch {
		case len(c) > 0 && rng.IntN(3) == 0:
			return c[1:]
		case len(c) > 0 && rng.IntN(2) == 0:
			return append(c, deepCopy(c[0]))
		}
		return []any{}
	case string:
		switch rng.IntN(6) {
		case 0:
			return ""
		case 1:
			return c + "!"
		case 2:
			return strings.ToUpper(c)
		case 3:
			return "é" + c
		case 4:
			if len(c) > 1 {
				return c[:len(c)-1]
			}
			return c + c
		}
		return strings.Repeat(c+"a", 5)
	case json.Number:
		r, _ := new(big.Rat).SetString(string(c))
		switch rng.IntN(6) {
		case 0:
			r.Add(r, big.NewRat(1, 1))
		case 1:
			r.Sub(r, big.NewRat(1, 1))
		case 2:
			r.Mul(r, big.NewRat(1000, 1))
		case 3:
			r.Add(r, big.NewRat(1, 2))
		case 4:
			r.Neg(r)
		default:
			if strings.ContainsAny(string(c), "eE") {
				return json.Number(strings.Replace(strings.ToLower(string(c)), "e", "0e", 1)) // another value, exponent kept
			}
			return json.Number(string(c) + "e0")
		}
		if r.IsInt() {
			return json.Number(r.Num().String())
		}
		return json.Number(r.FloatString(6))
	case bool:
		return !c
	}
	return others[rng.IntN(len(others))]
}

func deepCopy(v any) any {
	switch c := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(c))
		for k, x := range c {
			m[k] = deepCopy(x)
		}
		return m
	case []any:
		s := make([]any, len(c))
		for i, x := range c {
			s[i] = deepCopy(x)
		}
		return s
	}
	return v
}

// checkRoundTrip checks that what generated code wrote back is valid and
// means what the input meant.
func checkRoundTrip(t *testing.T, in instance, out []byte) {
	t.Helper()
	if err := validate(in.sch, out); err != nil {
		t.Errorf("%s %s: marshalled output fails the schema: %v\nin:  %s\nout: %s", in.key, in.label, err, in.doc, out)
		return
	}
	a, err1 := jsonschema.UnmarshalJSON(bytes.NewReader(in.doc))
	b, err2 := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err1 != nil || err2 != nil {
		t.Errorf("%s: %v %v", in.key, err1, err2)
		return
	}
	if path, ok := sameJSON(a, b, ""); !ok {
		t.Errorf("%s %s: round trip changed %s\nin:  %s\nout: %s", in.key, in.label, path, in.doc, out)
	}
}

// sameJSON compares two decoded documents: numbers by value (or as
// float64, which number fields hold), date-time strings by instant.
func sameJSON(a, b any, path string) (string, bool) {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return path, false
		}
		for k := range x {
			if p, ok := sameJSON(x[k], y[k], path+"/"+k); !ok {
				return p, false
			}
		}
		return "", true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return path, false
		}
		for i := range x {
			if p, ok := sameJSON(x[i], y[i], path+"/"+strconv.Itoa(i)); !ok {
				return p, false
			}
		}
		return "", true
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return path, false
		}
		r1, _ := new(big.Rat).SetString(string(x))
		r2, _ := new(big.Rat).SetString(string(y))
		if r1 != nil && r2 != nil && r1.Cmp(r2) == 0 {
			return "", true
		}
		f1, _ := strconv.ParseFloat(string(x), 64)
		f2, _ := strconv.ParseFloat(string(y), 64)
		return path, f1 == f2
	case string:
		y, ok := b.(string)
		if !ok {
			return path, false
		}
		if x == y {
			return "", true
		}
		t1, ok1 := rt.ParseDateTime(x)
		t2, ok2 := rt.ParseDateTime(y)
		return path, ok1 && ok2 && t1.Equal(t2)
	}
	return path, fmt.Sprint(a) == fmt.Sprint(b)
}

// --- collisions and names ---

func TestNameCollision(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("evtool.yaml", "version: 1\n")
	write("schemas/a/money.json", `{"title": "Money", "type": "object", "properties": {"x": {"type": "integer"}}}`)
	write("schemas/b/money.json", `{"title": "Money", "type": "object", "properties": {"y": {"type": "integer"}}}`)
	write("schemas/com.test.pay.made/v1.json", `{"type": "object", "properties": {"a": {"$ref": "../a/money.json"}, "b": {"$ref": "../b/money.json"}}}`)
	_, err := Generate(load(t, dir), Options{Package: "x"})
	if err == nil {
		t.Fatal("no error for two types named Money")
	}
	for _, want := range []string{"Money", filepath.Join("a", "money.json"), filepath.Join("b", "money.json")} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}

	// titles colliding inside one version
	write("schemas/com.test.pay.made/v1.json", `{"type": "object", "properties": {
		"a": {"title": "Thing", "type": "object", "properties": {"x": {"type": "integer"}}},
		"b": {"title": "Thing", "type": "object", "properties": {"y": {"type": "integer"}}}}}`)
	os.RemoveAll(filepath.Join(dir, "schemas", "a"))
	os.RemoveAll(filepath.Join(dir, "schemas", "b"))
	_, err = Generate(load(t, dir), Options{Package: "x"})
	if err == nil || !strings.Contains(err.Error(), "PayMadeV1Thing") || !strings.Contains(err.Error(), "#/properties/a") || !strings.Contains(err.Error(), "#/properties/b") {
		t.Errorf("collision inside a version: got %v", err)
	}

	// a type name taken by the runtime
	write("schemas/com.test.pay.made/v1.json", `{"type": "object", "properties": {"a": {"$ref": "#/$defs/x"}}, "$defs": {"x": {"title": "T", "type": "string", "enum": ["a"]}}}`)
	write("schemas/shared/null.json", `{"title": "Null", "type": "object", "properties": {"y": {"type": "integer"}}}`)
	write("schemas/com.test.pay.made/v2.json", `{"type": "object", "properties": {"n": {"$ref": "../shared/null.json"}}}`)
	_, err = Generate(load(t, dir), Options{Package: "x"})
	if err == nil || !strings.Contains(err.Error(), "Null") || !strings.Contains(err.Error(), "runtime") {
		t.Errorf("collision with the runtime: got %v", err)
	}
}

func TestDefaultPackage(t *testing.T) {
	if DefaultPackage("/x/events") != "events" || DefaultPackage("/x/my-events") != "myevents" || DefaultPackage("/x/1x") != "" {
		t.Error("DefaultPackage")
	}
}

func TestBadPackage(t *testing.T) {
	cat := load(t, corpus(t)["orders"])
	for _, p := range []string{"", "func", "main", "init", "_", "a-b", "1x"} {
		if _, err := Generate(cat, Options{Package: p}); err == nil {
			t.Errorf("package %q accepted", p)
		}
	}
}

func TestSortedStable(t *testing.T) {
	// the runtime names list is what the scope reserves
	names := append([]string(nil), runtimeNames...)
	sort.Strings(names)
	for i := 1; i < len(names); i++ {
		if names[i] == names[i-1] {
			t.Fatalf("duplicate runtime name %s", names[i])
		}
	}
}
