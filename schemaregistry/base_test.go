package schemaregistry

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/compat"
	"github.com/evtool/evtool/schemaregistry/internal/srtest"
)

func failingRules(res *compat.CheckResult) []string {
	var out []string
	for _, f := range res.Findings {
		if f.Failing() {
			out = append(out, f.Type+" "+f.Rule)
		}
	}
	sort.Strings(out)
	return out
}

// TestLoadBase: the registry as the base of `compat check --against
// registry:URL`.
func TestLoadBase(t *testing.T) {
	reg := srfake.New()
	defer reg.Close()
	dir := srtest.CopyCatalog(t, filepath.Join("..", "examples", "orders"))
	c := MustNewClient(t, ClientOptions{URL: reg.URL()})
	if rep, err := Push(ctx, c, srtest.LoadCat(t, dir), PushOptions{}); err != nil || rep.Failed() {
		t.Fatalf("push: %v %+v", err, rep)
	}
	check := func(t *testing.T) []string {
		t.Helper()
		head := srtest.LoadCat(t, dir)
		base, err := LoadBase(ctx, dir, reg.URL(), ClientOptions{})
		if err != nil {
			t.Fatalf("LoadBase: %v", err)
		}
		return failingRules(compat.CheckCatalog(head, base, compat.CheckOptions{Samples: 8, SamplesSet: true}))
	}

	// In step: versions that $ref shared files are not "modified".
	if got := check(t); len(got) != 0 {
		t.Fatalf("in step: %v", got)
	}

	// A new compatible version is fine; an incompatible one is reported.
	v2 := filepath.Join(dir, "schemas", "com.example.order.shipped", "v2.json")
	v1, _ := os.ReadFile(filepath.Join(dir, "schemas", "com.example.order.shipped", "v1.json"))
	breaking := strings.Replace(string(v1), `"shippedAt"
  ]`, `"shippedAt",
    "weightGrams"
  ]`, 1)
	breaking = strings.Replace(breaking, `"shippedAt": {`, `"weightGrams": {"type": "integer"},
    "shippedAt": {`, 1)
	if err := os.WriteFile(v2, []byte(breaking), 0o644); err != nil {
		t.Fatal(err)
	}
	got := check(t)
	if len(got) == 0 || !strings.Contains(strings.Join(got, ","), "required-property-added") {
		t.Fatalf("incompatible new version: %v", got)
	}
	os.Remove(v2)

	// A version edited in place differs from what the registry has.
	paid := filepath.Join(dir, "schemas", "com.example.order.paid", "v1.json")
	data, _ := os.ReadFile(paid)
	_ = os.WriteFile(paid, []byte(strings.Replace(string(data), "Version 1.", "Version one.", 1)), 0o644)
	if got := check(t); strings.Join(got, ",") != "com.example.order.paid "+compat.RulePublishedModified {
		t.Fatalf("edited version: %v", got)
	}
	_ = os.WriteFile(paid, data, 0o644)

	// A subject the catalog lost is a removed type; a version the catalog
	// lacks a removed version.
	cl := srtest.SRClient(t, reg.URL())
	if _, err := cl.RegisterSchema(ctx, "com.example.order.refunded", sr.Schema{Schema: `{"type":"object"}`, Type: sr.TypeJSON}, -1, -1); err != nil {
		t.Fatal(err)
	}
	if _, err := cl.RegisterSchema(ctx, "com.example.order.shipped", sr.Schema{Schema: `{"type":"object","title":"v2 only in the registry"}`, Type: sr.TypeJSON}, -1, -1); err != nil {
		t.Fatal(err)
	}
	got = check(t)
	want := "com.example.order.refunded " + compat.RuleTypeRemoved + ",com.example.order.shipped " + compat.RuleVersionRemoved
	if strings.Join(got, ",") != want {
		t.Fatalf("registry ahead of the catalog: %v, want %s", got, want)
	}

	// The URL may come from evtool.yaml.
	cfg := filepath.Join(dir, catalog.ConfigName)
	old, _ := os.ReadFile(cfg)
	_ = os.WriteFile(cfg, append(old, []byte("registry:\n  url: "+reg.URL()+"\n")...), 0o644)
	if _, err := LoadBase(ctx, dir, "", ClientOptions{}); err != nil {
		t.Fatalf("URL from evtool.yaml: %v", err)
	}
	// An unreachable registry is an error that names it without
	// credentials.
	_, err := LoadBase(ctx, dir, "http://user:pw-SECRET@127.0.0.1:1", ClientOptions{})
	if err == nil || strings.Contains(err.Error(), "pw-SECRET") {
		t.Fatalf("unreachable: %v", err)
	}
}
