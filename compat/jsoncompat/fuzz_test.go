package jsoncompat

import (
	"encoding/json"
	"fmt"
	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/internal/fuzzcost"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
	"time"

	"github.com/evtool/evtool/internal/jsonstrict"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// FuzzCompare feeds arbitrary pairs of bounded schemas (the corpus and the
// rule fixtures seed it) to the engine in both directions and both
// profiles. The engine must not panic, must terminate quickly (recursive
// schemas included), every counterexample it prints must be one, and when
// it says compatible a witness search must find nothing.
func FuzzCompare(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/corpus/*.json")
	for _, file := range seeds {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		var p corpusPair
		if err := json.Unmarshal(data, &p); err == nil {
			f.Add([]byte(p.Old), []byte(p.New))
		}
	}
	dirs, _ := filepath.Glob("testdata/rules/*")
	for _, d := range dirs {
		o, err1 := os.ReadFile(filepath.Join(d, "old.json"))
		n, err2 := os.ReadFile(filepath.Join(d, "new.json"))
		if err1 == nil && err2 == nil {
			f.Add(o, n)
		}
	}
	f.Add([]byte(`{"$ref":"#"}`), []byte(`{"anyOf":[{"$ref":"#"},{"type":"string"}]}`))
	f.Add([]byte(`{"properties":{"a":{"$ref":"#"}}}`), []byte(`{"properties":{"a":{"$ref":"#/properties/a"}}}`))
	f.Add([]byte(`{"not":{"$ref":"#"}}`), []byte(`{"allOf":[{"$ref":"#"}]}`))
	f.Fuzz(func(t *testing.T, oldText, newText []byte) {
		fuzzcost.Default().Check(t, len(oldText)+len(newText), func() {
			if len(oldText) > 2048 || len(newText) > 2048 {
				return
			}
			old := fuzzSide(oldText, "old.json")
			nw := fuzzSide(newText, "new.json")
			if old == nil || nw == nil {
				return
			}
			if dir := os.Getenv("EVTOOL_FUZZ_CURRENT"); dir != "" {
				// The input under test, for hangs that kill the worker.
				_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("current-%d", os.Getpid())), []byte(fmt.Sprintf("OLD %q\nNEW %q\n", oldText, newText)), 0o644)
			}
			for _, cfg := range configs {
				done := make(chan []Finding, 1)
				panicked := make(chan any, 1)
				start := time.Now()
				go func() {
					defer func() {
						if r := recover(); r != nil {
							panicked <- fmt.Sprintf("%v\n%s", r, debug.Stack())
						}
					}()
					done <- Compare(old, nw, cfg.dir, engine.Options{Profile: profileOf(cfg.profile), Seed: 3, Samples: 6, Budget: 20000})
				}()
				var fs []Finding
				select {
				case p := <-panicked:
					t.Fatalf("%s %s: panic: %v\nold: %s\nnew: %s", cfg.dir, cfg.profile, p, oldText, newText)
				case fs = <-done:
				case <-time.After(20 * time.Second):
					t.Fatalf("%s %s: no verdict after 20s\nold: %s\nnew: %s", cfg.dir, cfg.profile, oldText, newText)
				}
				if d := time.Since(start); d > time.Second {
					t.Logf("%s %s: slow (%v)", cfg.dir, cfg.profile, d)
					if log := os.Getenv("EVTOOL_FUZZ_SLOWLOG"); log != "" {
						if fh, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
							fmt.Fprintf(fh, "%v %s %s\nOLD %q\nNEW %q\n", d, cfg.dir, cfg.profile, oldText, newText)
							fh.Close()
						}
					}
				}
				for _, fd := range fs {
					if fd.Rule == "" || fd.Message == "" {
						t.Fatalf("finding without rule or message: %+v", fd)
					}
				}
				writer, reader := old, nw
				if cfg.dir == engine.Forward {
					writer, reader = nw, old
				}
				lenient := cfg.profile == "lenient"
				for _, fd := range fs {
					if !fd.HasCounterexample {
						continue
					}
					if !writer.writerValid(fd.Counterexample, lenient) || reader.Schema.Validate(fd.Counterexample) == nil {
						t.Fatalf("%s %s: %s counterexample %s is not one\nold: %s\nnew: %s", cfg.dir, cfg.profile, fd.Rule, compactJSON(fd.Counterexample), oldText, newText)
					}
				}
				if Compatible(fs) {
					oracle := compare(old, nw, cfg.dir, engine.Options{Profile: profileOf(cfg.profile), Seed: 11, Samples: 12}, nil, true)
					for _, fd := range oracle {
						if fd.HasCounterexample {
							t.Fatalf("FALSE COMPATIBLE %s %s: %s is a counterexample\nold: %s\nnew: %s\nfindings: %s",
								cfg.dir, cfg.profile, compactJSON(fd.Counterexample), oldText, newText, summarize(fs))
						}
					}
				}
			}
		})
	})
}

func fuzzSide(text []byte, name string) *Side {
	doc, err := jsonstrict.Decode(text)
	if err != nil || jsonstrict.Depth(text) > 12 {
		return nil
	}
	if m, ok := doc.(map[string]any); ok {
		// Stay inside the catalog's rules: no remote or file references.
		if _, ok := m["$id"]; ok {
			return nil
		}
	}
	s, err := fuzzCompile(name, doc)
	if err != nil {
		return nil
	}
	if _, err := fuzzCompile(name, Close(doc)); err != nil {
		return nil
	}
	return NewSide(s, nil)
}

func fuzzCompile(name string, doc any) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	u := "file:///evtool-catalog/" + name
	if err := c.AddResource(u, doc); err != nil {
		return nil, err
	}
	return c.Compile(u)
}

type noLoader struct{}

func (noLoader) Load(string) (any, error) { return nil, os.ErrNotExist }
