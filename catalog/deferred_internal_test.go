package catalog

import (
	"errors"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evtool/evtool/report"
)

// TestDeferredMatchesLoad: a catalog loaded deferred and compiled type by
// type (CompileType, then LintShared) has the findings, digests and
// compiled schemas Load gives, for every load fixture and each format's
// way of compiling (from the root read once, or file by file); a released
// type compiles again.
func TestDeferredMatchesLoad(t *testing.T) {
	archives, err := filepath.Glob("testdata/load/*.txtar")
	if err != nil || len(archives) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, file := range archives {
		t.Run(filepath.Base(file), func(t *testing.T) {
			fsys, _ := archiveFS(t, file)
			eager, eagerErr := LoadFS(fsys, "cat")
			lazy, lazyErr := LoadFSDeferred(fsys, "cat")
			// A catalog whose evtool.yaml does not load has no types to
			// defer.
			if eager.Deferred() || lazy.Template != nil && !lazy.Deferred() {
				t.Fatal("Deferred() does not tell the loads apart")
			}
			got := findingsOf(t, lazyErr)
			for _, typ := range lazy.Types {
				got = append(got, lazy.CompileType(typ)...)
			}
			got = append(got, lazy.LintShared()...)
			if diff := cmp.Diff(sortedFindings(findingsOf(t, eagerErr)), sortedFindings(got)); diff != "" {
				t.Errorf("findings differ (-Load +deferred):\n%s", diff)
			}
			if len(eager.Types) != len(lazy.Types) {
				t.Fatalf("%d types loaded, %d deferred", len(eager.Types), len(lazy.Types))
			}
			for i, et := range eager.Types {
				lt := lazy.Types[i]
				if len(et.Versions) != len(lt.Versions) {
					t.Fatalf("%s: %d versions loaded, %d deferred", et.Name, len(et.Versions), len(lt.Versions))
				}
				for j, ev := range et.Versions {
					lv := lt.Versions[j]
					if ev.Digest != lv.Digest || string(ev.Text) != string(lv.Text) || (ev.Doc == nil) != (lv.Doc == nil) {
						t.Errorf("%s: digest %q text %d bytes loaded, %q %d bytes deferred", ev.File, ev.Digest, len(ev.Text), lv.Digest, len(lv.Text))
					}
					if (ev.Compiled == nil) != (lv.Compiled == nil) || (jsonSchemaOf(ev) == nil) != (jsonSchemaOf(lv) == nil) {
						t.Errorf("%s: compiled %v/%v loaded, %v/%v deferred", ev.File, ev.Compiled != nil, jsonSchemaOf(ev) != nil, lv.Compiled != nil, jsonSchemaOf(lv) != nil)
					}
					if ev.Compiled != nil && lv.Compiled != nil && DigestOf(ev.Compiled) != DigestOf(lv.Compiled) {
						t.Errorf("%s: compiled digest %s loaded, %s deferred", ev.File, DigestOf(ev.Compiled), DigestOf(lv.Compiled))
					}
				}
				if diff := cmp.Diff(eager.CheckTypeExamples(et), lazy.CheckTypeExamples(lt)); diff != "" {
					t.Errorf("%s: example findings differ (-Load +deferred):\n%s", et.Name, diff)
				}
				lazy.ReleaseType(lt)
				for _, v := range lt.Versions {
					if v.Compiled != nil {
						t.Errorf("%s: still compiled after ReleaseType", v.File)
					}
				}
				lazy.CompileType(lt)
				for j, v := range lt.Versions {
					if (v.Compiled == nil) != (et.Versions[j].Compiled == nil) || v.Digest != et.Versions[j].Digest {
						t.Errorf("%s: compiled %v, digest %q after compiling a released type again", v.File, v.Compiled != nil, v.Digest)
					}
				}
			}
		})
	}
}

// findingsOf are the findings of a load's error (nil for none).
func findingsOf(t *testing.T, err error) []report.Finding {
	t.Helper()
	if err == nil {
		return nil
	}
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("load error %T: %v", err, err)
	}
	return le.Findings
}

// sortedFindings orders findings whole, so two loads' may be compared
// whatever order they found the problems of one place in.
func sortedFindings(fs []report.Finding) []report.Finding {
	out := append([]report.Finding(nil), fs...)
	sort.SliceStable(out, func(i, j int) bool {
		if ki, kj := reportKey(out[i]), reportKey(out[j]); ki != kj {
			return ki < kj
		}
		return out[i].Rule < out[j].Rule
	})
	return out
}
