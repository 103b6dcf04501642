package schemaregistry_test

// The client's tests that run against evtool's own registry server as well
// as srfake. The server's package imports the client's, so they live in
// the external test package, which may import both.

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/report"
	"github.com/evtool/evtool/schemaregistry"
	"github.com/evtool/evtool/schemaregistry/internal/srtest"
	"github.com/evtool/evtool/schemaregistry/internal/wire"
	"github.com/evtool/evtool/schemaregistry/registryserver"
)

var ctx = context.Background()

// registries runs a test against srfake and against evtool's own server
// over an empty catalog (config writes allowed: push sets levels).
func registries(t *testing.T, fn func(t *testing.T, url string)) {
	t.Run("srfake", func(t *testing.T) {
		reg := srfake.New()
		t.Cleanup(reg.Close)
		fn(t, reg.URL())
	})
	t.Run("evtool", func(t *testing.T) {
		dir := srtest.WriteCatalog(t, map[string]string{"evtool.yaml": "version: 1\ncompat:\n  mode: NONE\n", "schemas/.keep": ""})
		s, err := registryserver.NewServer(registryserver.ServerOptions{Dir: dir, AllowConfigWrites: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		hs := httptest.NewServer(s)
		t.Cleanup(hs.Close)
		fn(t, hs.URL)
	})
}

func TestPushIdempotentDiffPull(t *testing.T) {
	registries(t, func(t *testing.T, url string) {
		dir := srtest.CopyCatalog(t, filepath.Join("..", "examples", "orders"))
		cat := srtest.LoadCat(t, dir)
		c := schemaregistry.MustNewClient(t, schemaregistry.ClientOptions{URL: url})
		opts := schemaregistry.PushOptions{SyncOptions: schemaregistry.SyncOptions{Strategy: schemaregistry.StrategyType}}

		dry, err := schemaregistry.Push(ctx, c, cat, schemaregistry.PushOptions{SyncOptions: opts.SyncOptions, DryRun: true})
		if err != nil || dry.Failed() || srtest.Count(dry, schemaregistry.RuleRegistered) != 4 {
			t.Fatalf("dry run: %v %+v", err, dry)
		}
		if st := srtest.DumpState(t, url); len(st.Subjects) != 0 {
			t.Fatalf("dry run changed the registry: %v", st.Subjects)
		}

		rep, err := schemaregistry.Push(ctx, c, cat, opts)
		if err != nil || rep.Failed() {
			t.Fatalf("push: %v %+v", err, rep.Findings)
		}
		if srtest.Count(rep, schemaregistry.RuleRegistered) != 4 || srtest.Count(rep, schemaregistry.RuleLevelSet) != 3 {
			t.Fatalf("push did %v", srtest.Rules(rep, report.SeverityInfo))
		}
		before := srtest.DumpState(t, url)
		if len(before.Subjects) != 3 {
			t.Fatalf("registry has %v", before.Subjects)
		}
		for s, lvl := range before.Levels {
			if lvl != "FULL_TRANSITIVE <nil>" {
				t.Fatalf("%s level %s", s, lvl)
			}
		}

		// Second push: nothing to do, and nothing changed.
		rep, err = schemaregistry.Push(ctx, c, cat, opts)
		if err != nil || len(rep.Findings) != 0 {
			t.Fatalf("second push: %v %+v", err, rep.Findings)
		}
		if diff := cmp.Diff(before, srtest.DumpState(t, url)); diff != "" {
			t.Fatalf("second push changed the registry (-before +after):\n%s", diff)
		}

		d, err := schemaregistry.Diff(ctx, c, cat, schemaregistry.SyncOptions{Strategy: schemaregistry.StrategyType})
		if err != nil || d.Failed() || len(d.Findings) != 0 {
			t.Fatalf("diff after push: %v %+v", err, d.Findings)
		}

		out := filepath.Join(t.TempDir(), "pulled")
		res, err := schemaregistry.Pull(ctx, c, schemaregistry.PullOptions{SyncOptions: schemaregistry.SyncOptions{Strategy: schemaregistry.StrategyType}, Out: out})
		if err != nil {
			t.Fatal(err)
		}
		if res.Types != 3 || res.Versions != 4 {
			t.Fatalf("pulled %+v", res)
		}
		pulled := srtest.LoadCat(t, out) // what `evtool lint` loads
		if fs := pulled.CheckExamples(); len(fs) != 0 {
			t.Fatal(fs)
		}
		if pulled.Config.Compat.Mode != "" && pulled.Config.Compat.Mode != catalog.ModeFullTransitive && pulled.Config.Compat.Mode != catalog.ModeBackward && pulled.Config.Compat.Mode != catalog.ModeNone {
			t.Fatalf("pulled mode %s", pulled.Config.Compat.Mode)
		}
		forms := wire.CatalogForms(cat)
		for _, typ := range cat.Types {
			pt := pulled.Lookup(typ.Name)
			if pt == nil || len(pt.Versions) != len(typ.Versions) {
				t.Fatalf("pulled %s: %+v", typ.Name, pt)
			}
			for i, v := range typ.Versions {
				f, _ := forms.Of(v)
				if pt.Versions[i].Digest != f.Digest {
					t.Fatalf("pulled %s v%d differs from the pushed form", typ.Name, i+1)
				}
			}
		}
		// The pulled catalog is in step with the registry too.
		pulled.Config.Registry.URL = url
		d, err = schemaregistry.Diff(ctx, c, pulled, schemaregistry.SyncOptions{Strategy: schemaregistry.StrategyType})
		if err != nil || d.Failed() {
			t.Fatalf("diff of the pulled catalog: %v %+v", err, d.Findings)
		}
		// Pull refuses to overwrite.
		if _, err := schemaregistry.Pull(ctx, c, schemaregistry.PullOptions{Out: out}); err == nil || !strings.Contains(err.Error(), "not empty") {
			t.Fatalf("pull into a non-empty directory: %v", err)
		}
	})
}

func TestDiffAndPushReportDrift(t *testing.T) {
	registries(t, func(t *testing.T, url string) {
		dir := srtest.CopyCatalog(t, filepath.Join("..", "examples", "orders"))
		c := schemaregistry.MustNewClient(t, schemaregistry.ClientOptions{URL: url})
		opts := schemaregistry.PushOptions{SyncOptions: schemaregistry.SyncOptions{Strategy: schemaregistry.StrategyType}}
		if rep, err := schemaregistry.Push(ctx, c, srtest.LoadCat(t, dir), opts); err != nil || rep.Failed() {
			t.Fatalf("push: %v %+v", err, rep)
		}

		// A new version in the catalog: missing in the registry (diff
		// fails), push registers it (and only it).
		shipped := filepath.Join(dir, "schemas", "com.example.order.shipped")
		v1, _ := os.ReadFile(filepath.Join(shipped, "v1.json"))
		v2 := strings.Replace(string(v1), `"shippedAt": {`, `"note": {"type": "string"},
    "shippedAt": {`, 1)
		if err := os.WriteFile(filepath.Join(shipped, "v2.json"), []byte(v2), 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := schemaregistry.Diff(ctx, c, srtest.LoadCat(t, dir), opts.SyncOptions)
		if err != nil || !d.Failed() || fmt.Sprint(srtest.Rules(d, report.SeverityError)) != "[com.example.order.shipped registry-version-missing]" {
			t.Fatalf("diff with a new version: %v %v", err, d.Findings)
		}
		rep, err := schemaregistry.Push(ctx, c, srtest.LoadCat(t, dir), opts)
		if err != nil || rep.Failed() || fmt.Sprint(srtest.Rules(rep, report.SeverityInfo)) != "[com.example.order.shipped registry-registered]" {
			t.Fatalf("push of the new version: %v %+v", err, rep.Findings)
		}

		// A published version edited in place: diff names the pointer,
		// push refuses that subject.
		paid := filepath.Join(dir, "schemas", "com.example.order.paid", "v1.json")
		data, _ := os.ReadFile(paid)
		if err := os.WriteFile(paid, []byte(strings.Replace(string(data), "Version 1.", "Version one.", 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		d, err = schemaregistry.Diff(ctx, c, srtest.LoadCat(t, dir), opts.SyncOptions)
		if err != nil || !d.Failed() {
			t.Fatalf("diff with an edited version: %v %v", err, d.Findings)
		}
		var differs *report.Finding
		for i, f := range d.Findings {
			if f.Rule == schemaregistry.RuleVersionDiffers {
				differs = &d.Findings[i]
			}
		}
		if differs == nil || differs.Pointer != "/description" || differs.Subject != "com.example.order.paid" {
			t.Fatalf("diff findings: %+v", d.Findings)
		}
		before := srtest.DumpState(t, url)
		rep, err = schemaregistry.Push(ctx, c, srtest.LoadCat(t, dir), opts)
		if err != nil || !rep.Failed() || srtest.Count(rep, schemaregistry.RuleVersionDiffers) != 1 || srtest.Count(rep, schemaregistry.RuleRegistered) != 0 {
			t.Fatalf("push with an edited version: %v %+v", err, rep.Findings)
		}
		if diff := cmp.Diff(before, srtest.DumpState(t, url)); diff != "" {
			t.Fatalf("a conflicting push changed the registry:\n%s", diff)
		}
		_ = os.WriteFile(paid, data, 0o644)

		// The registry has a version and a subject the catalog lacks.
		cl := srtest.SRClient(t, url)
		if _, err := cl.RegisterSchema(ctx, "com.example.order.paid", sr.Schema{Schema: `{"type":"object","title":"registered elsewhere"}`, Type: sr.TypeJSON}, -1, -1); err != nil {
			// evtool's server checks compatibility: FULL_TRANSITIVE
			// refuses this one, so make it NONE first.
			if r := cl.SetCompatibility(ctx, sr.SetCompatibility{Level: sr.CompatNone}, "com.example.order.paid"); r[0].Err != nil {
				t.Fatal(r[0].Err)
			}
			if _, err := cl.RegisterSchema(ctx, "com.example.order.paid", sr.Schema{Schema: `{"type":"object","title":"registered elsewhere"}`, Type: sr.TypeJSON}, -1, -1); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := cl.RegisterSchema(ctx, "com.example.order.refunded", sr.Schema{Schema: `{"type":"object"}`, Type: sr.TypeJSON}, -1, -1); err != nil {
			t.Fatal(err)
		}
		d, err = schemaregistry.Diff(ctx, c, srtest.LoadCat(t, dir), opts.SyncOptions)
		if err != nil {
			t.Fatal(err)
		}
		got := srtest.Rules(d, report.SeverityError)
		want := []string{"com.example.order.paid registry-version-extra", "com.example.order.refunded registry-subject-extra"}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("diff = %v, want %v", got, want)
		}
		// --subject-prefix narrows what counts.
		d, err = schemaregistry.Diff(ctx, c, srtest.LoadCat(t, dir), schemaregistry.SyncOptions{Strategy: schemaregistry.StrategyType, SubjectPrefix: "com.example.order.p"})
		if err != nil || srtest.Count(d, schemaregistry.RuleSubjectExtra) != 0 {
			t.Fatalf("diff with a prefix: %v %v", err, d.Findings)
		}
		rep, err = schemaregistry.Push(ctx, c, srtest.LoadCat(t, dir), opts)
		if err != nil || srtest.Count(rep, schemaregistry.RuleVersionExtra) != 1 {
			t.Fatalf("push with an extra registry version: %v %+v", err, rep.Findings)
		}
	})
}

// TestPushFormatsWithReferences: Avro and Protobuf versions are pushed
// with their schemaType and with Confluent schema references to the
// shared files they use, each registered first under its own subject; a
// second push only reads; diff is in step; pull writes a catalog that is
// in step too.
func TestPushFormatsWithReferences(t *testing.T) {
	cases := []struct {
		name, subject, schemaType string
		shared                    map[string][]string // subject -> its own reference names
		v2refs                    []string
	}{
		{"avro", "com.example.payment.made", "AVRO",
			map[string][]string{"com.example.common.Money": nil, "com.example.common.Fee": {"com.example.common.Money"}},
			[]string{"com.example.common.Money", "com.example.common.Fee"}},
		{"proto", "com.example.stock.moved", "PROTOBUF",
			map[string][]string{"common/money.proto": nil, "common/place.proto": {"common/money.proto"}},
			[]string{"common/money.proto", "common/place.proto"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			registries(t, func(t *testing.T, url string) {
				dir := srtest.CopyCatalog(t, filepath.Join("testdata", "formats", tc.name))
				cat := srtest.LoadCat(t, dir)
				c := schemaregistry.MustNewClient(t, schemaregistry.ClientOptions{URL: url})
				opts := schemaregistry.PushOptions{SyncOptions: schemaregistry.SyncOptions{Strategy: schemaregistry.StrategyType}}
				rep, err := schemaregistry.Push(ctx, c, cat, opts)
				if err != nil || rep.Failed() {
					t.Fatalf("push: %v %+v", err, rep)
				}
				if n := srtest.Count(rep, schemaregistry.RuleRegistered); n != 2+len(tc.shared) {
					t.Fatalf("push registered %d, want %d: %v", n, 2+len(tc.shared), srtest.Rules(rep, report.SeverityInfo))
				}
				cl := srtest.SRClient(t, url)
				ss, err := cl.SchemaByVersion(ctx, tc.subject, 2)
				if err != nil {
					t.Fatal(err)
				}
				if ss.Type.String() != tc.schemaType {
					t.Errorf("schemaType %s, want %s", ss.Type, tc.schemaType)
				}
				var names []string
				for _, r := range ss.References {
					names = append(names, r.Name)
					if r.Subject != r.Name || r.Version != 1 {
						t.Errorf("reference %+v: want subject = name, version 1", r)
					}
				}
				if strings.Join(names, ",") != strings.Join(tc.v2refs, ",") {
					t.Errorf("v2 references %v, want %v (dependency order)", names, tc.v2refs)
				}
				for subj, deps := range tc.shared {
					ss, err := cl.SchemaByVersion(ctx, subj, -1)
					if err != nil {
						t.Fatalf("shared subject %s: %v", subj, err)
					}
					var got []string
					for _, r := range ss.References {
						got = append(got, r.Name)
					}
					if strings.Join(got, ",") != strings.Join(deps, ",") {
						t.Errorf("%s references %v, want %v", subj, got, deps)
					}
				}
				before := srtest.DumpState(t, url)
				again, err := schemaregistry.Push(ctx, c, cat, opts)
				if err != nil || again.Failed() || srtest.Count(again, schemaregistry.RuleRegistered) != 0 {
					t.Fatalf("second push: %v %+v", err, again)
				}
				if after := srtest.DumpState(t, url); len(after.Subjects) != len(before.Subjects) {
					t.Fatalf("second push changed the registry")
				}
				diff, err := schemaregistry.Diff(ctx, c, cat, opts.SyncOptions)
				if err != nil || diff.Failed() {
					t.Fatalf("diff: %v %+v", err, diff.Findings)
				}

				out := filepath.Join(t.TempDir(), "pulled")
				res, err := schemaregistry.Pull(ctx, c, schemaregistry.PullOptions{SyncOptions: opts.SyncOptions, Out: out, Warn: func(m string) { t.Log(m) }})
				if err != nil {
					t.Fatalf("pull: %v", err)
				}
				if res.Types != 1 || res.Versions != 2 {
					t.Fatalf("pulled %d types, %d versions", res.Types, res.Versions)
				}
				pd, err := schemaregistry.Diff(ctx, c, res.Catalog, opts.SyncOptions)
				if err != nil || pd.Failed() {
					t.Fatalf("diff of the pulled catalog: %v %+v", err, pd.Findings)
				}
			})
		})
	}
}
