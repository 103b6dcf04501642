package consumers

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/compat/jsoncompat"
	"github.com/evtool/evtool/format"
	jsonformat "github.com/evtool/evtool/format/jsonschema"
	"github.com/evtool/evtool/internal/jsonpos"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema/kind"
	"github.com/evtool/evtool/report"
)

// TestProjectionKeepsRuleBreaks holds the projection to its one promise:
// it may only drop what cannot constrain a read value. For every JSON
// Schema compat rule whose fixture (compat/jsoncompat's rule fixtures and
// labelled corpus) yields an error with a counterexample, a consumer that
// reads the counterexample's fields must still get an error. Each pair is
// wrapped as property /x of an object with an unread sibling, so that the
// projection has something to cut at every level; the consumer reads every
// leaf of the counterexample (the values it sends), not the whole data.
func TestProjectionKeepsRuleBreaks(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: every rule fixture and corpus pair, twice (several seconds)")
	}
	type pair struct{ name, old, new string }
	var pairs []pair
	dirs, err := filepath.Glob("../compat/jsoncompat/testdata/rules/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if mode, _ := os.ReadFile(filepath.Join(d, "mode")); strings.TrimSpace(string(mode)) != "" {
			continue // analysis-limit fixtures: their findings are not decided by witnesses alone
		}
		old, err1 := os.ReadFile(filepath.Join(d, "old.json"))
		nw, err2 := os.ReadFile(filepath.Join(d, "new.json"))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		pairs = append(pairs, pair{"rules/" + filepath.Base(d), string(old), string(nw)})
	}
	corpus, err := filepath.Glob("../compat/jsoncompat/testdata/corpus/*.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range corpus {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var p struct{ Old, New json.RawMessage }
		if err := json.Unmarshal(data, &p); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		pairs = append(pairs, pair{"corpus/" + filepath.Base(file), string(p.Old), string(p.New)})
	}
	if len(pairs) < 150 {
		t.Fatalf("%d fixture pairs, want the rule fixtures and the corpus", len(pairs))
	}
	covered := map[string]bool{}
	for _, pr := range pairs {
		old := compileWrapped(t, pr.old)
		nw := compileWrapped(t, pr.new)
		for _, dir := range []engine.Direction{engine.Backward, engine.Forward} {
			for _, profile := range []string{jsoncompat.ProfileLenient, jsoncompat.ProfileStrict} {
				opts := engine.Options{Profile: profile, Seed: 1}
				whole := jsoncompat.Compare(jsoncompat.NewSide(old, nil), jsoncompat.NewSide(nw, nil), dir, opts)
				for _, f := range whole {
					if f.Severity != report.SeverityError || !f.HasCounterexample {
						continue
					}
					reader := nw
					if dir == engine.Forward {
						reader = old
					}
					// The values it sends, and the properties the reader
					// misses in it.
					ptrs := missing(reader.Validate(f.Counterexample), leaves(f.Counterexample, nil, nil))
					fields := format.NewFields(ptrs)
					po := jsoncompat.NewSide(jsonformat.Project(old, fields), nil)
					pn := jsoncompat.NewSide(jsonformat.Project(nw, fields), nil)
					if jsoncompat.Compatible(jsoncompat.Compare(po, pn, dir, opts)) {
						ce, _ := json.Marshal(f.Counterexample)
						t.Errorf("%s %s %s: %s (counterexample %s) is lost for a consumer reading %v", pr.name, dir, profile, f.Rule, ce, ptrs)
					}
					covered[f.Rule] = true
				}
			}
		}
	}
	// Every rule that can be an error with a counterexample was tried.
	var missing []string
	for _, r := range jsoncompat.Rules() {
		if r.Severity == report.SeverityError && !covered[r.ID] && r.ID != "witness-rejected" {
			missing = append(missing, r.ID)
		}
	}
	sort.Strings(missing)
	t.Logf("%d rules checked; error rules without a counterexample case: %v", len(covered), missing)
}

// compileWrapped compiles {"properties":{"x":<doc>,"y":...}}, doc as its own
// resource so that its own references and $schema stay as written.
func compileWrapped(t *testing.T, doc string) *jsonschema.Schema {
	t.Helper()
	inner, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	outer, err := jsonschema.UnmarshalJSON(strings.NewReader(`{"type":"object","required":["x"],"properties":{"x":{"$ref":"inner.json"},"y":{"type":"string"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("file:///inner.json", inner); err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("file:///outer.json", outer); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("file:///outer.json")
	if err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	return s
}

// missing adds the properties a validation error says are required and
// absent.
func missing(err error, out []string) []string {
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		return out
	}
	switch k := verr.ErrorKind.(type) {
	case *kind.Required:
		for _, name := range k.Missing {
			out = append(out, jsonpos.Join(append(verr.InstanceLocation[:len(verr.InstanceLocation):len(verr.InstanceLocation)], name)...))
		}
	case *kind.DependentRequired:
		for _, name := range k.Missing {
			out = append(out, jsonpos.Join(append(verr.InstanceLocation[:len(verr.InstanceLocation):len(verr.InstanceLocation)], name)...))
		}
	}
	for _, c := range verr.Causes {
		out = missing(c, out)
	}
	return out
}

// leaves lists the pointers of v's scalar values, empty objects and empty
// arrays: the fields a consumer reads when it reads all that v sends.
func leaves(v any, at []string, out []string) []string {
	switch v := v.(type) {
	case map[string]any:
		if len(v) > 0 {
			for k, c := range v {
				out = leaves(c, append(at[:len(at):len(at)], k), out)
			}
			return out
		}
	case []any:
		if len(v) > 0 {
			for i, c := range v {
				out = leaves(c, append(at[:len(at):len(at)], strconv.Itoa(i)), out)
			}
			return out
		}
	}
	return append(out, jsonpos.Join(at...))
}

// TestProjectionObjectKeywords: keywords beside properties that constrain
// a read property stay in the projection; those that concern unread
// properties alone go.
func TestProjectionObjectKeywords(t *testing.T) {
	const v1 = `{"type":"object","properties":{"code":{"type":"string"},"note":{"type":"string"}}}`
	for _, tc := range []struct {
		name   string
		new    string
		fields []string
		breaks bool
	}{
		{"patternProperties over a declared read property", `{"type":"object","properties":{"code":{"type":"string"}},"patternProperties":{"^co":{"maxLength":3}}}`, []string{"/code"}, true},
		{"patternProperties over an unread property", `{"type":"object","properties":{"code":{"type":"string"}},"patternProperties":{"^no":{"maxLength":3}}}`, []string{"/code"}, false},
		{"dependentSchemas on a read property", `{"type":"object","properties":{"code":{"type":"string"}},"dependentSchemas":{"code":{"properties":{"code":{"maxLength":3}}}}}`, []string{"/code"}, true},
		{"dependentSchemas keyed by an unread optional property", `{"type":"object","properties":{"code":{"type":"string"}},"dependentSchemas":{"note":{"properties":{"code":{"maxLength":3}}}}}`, []string{"/code"}, false},
		{"dependentSchemas on unread properties", `{"type":"object","properties":{"code":{"type":"string"}},"dependentSchemas":{"note":{"properties":{"note":{"maxLength":3}}}}}`, []string{"/code"}, false},
		{"draft-07 schema dependencies", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"code":{"type":"string"}},"dependencies":{"code":{"properties":{"code":{"maxLength":3}}}}}`, []string{"/code"}, true},
		{"propertyNames rejects a read name", `{"type":"object","properties":{"code":{"type":"string"}},"propertyNames":{"maxLength":3}}`, []string{"/code"}, true},
		{"propertyNames rejects only unread names", `{"type":"object","properties":{"code":{"type":"string"}},"propertyNames":{"pattern":"^c"}}`, []string{"/code"}, false},
		{"dependentRequired makes a read property required", `{"type":"object","properties":{"code":{"type":"string"}},"required":["note"],"dependentRequired":{"note":["code"]}}`, []string{"/code", "/note"}, true},
		{"dependentRequired among unread properties", `{"type":"object","properties":{"code":{"type":"string"}},"dependentRequired":{"note":["other"]}}`, []string{"/code"}, false},
		{"maxProperties over read properties", `{"type":"object","properties":{"code":{"type":"string"},"note":{"type":"string"}},"maxProperties":1}`, []string{"/code", "/note"}, true},
		{"unevaluatedProperties on a read property", `{"type":"object","properties":{"note":{"type":"string"}},"unevaluatedProperties":{"maxLength":3}}`, []string{"/code"}, true},
		{"unevaluatedProperties beside an unread property", `{"type":"object","properties":{"code":{"type":"string"}},"unevaluatedProperties":false}`, []string{"/code"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fields := format.NewFields(tc.fields)
			old := jsoncompat.NewSide(jsonformat.Project(compile(t, "old.json", v1), fields), nil)
			nw := jsoncompat.NewSide(jsonformat.Project(compile(t, "new.json", tc.new), fields), nil)
			fs := jsoncompat.Compare(old, nw, engine.Backward, engine.Options{Samples: 20, Seed: 1})
			if got := !jsoncompat.Compatible(fs); got != tc.breaks {
				t.Errorf("breaks = %v, want %v: %+v", got, tc.breaks, fs)
			}
		})
	}
}
