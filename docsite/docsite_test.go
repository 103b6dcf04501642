package docsite

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/format"
	jsformat "github.com/evtool/evtool/format/jsonschema"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

func load(t *testing.T, dir string) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Load(dir)
	if err != nil {
		t.Fatalf("loading %s: %v", dir, err)
	}
	return cat
}

func build(t *testing.T, dir string) *Site {
	t.Helper()
	site, err := Build(load(t, dir), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return site
}

// Golden pages of the example catalog: go test ./docsite -update
// rewrites them.
func TestGolden(t *testing.T) {
	for _, c := range []struct {
		name, dir string
		pages     []string
	}{
		{"orders", "../examples/orders", []string{
			"index.html",
			"types/com.example.order.placed/index.html",
			"types/com.example.order.placed/v2.html",
			"types/com.example.order.placed/v1-v2.html",
			"search-index.json",
		}},
		{"formats", "testdata/formats", []string{
			"types/com.example.payment.made/v3.html",
			"types/com.example.payment.made/v1-v2.html",
			"types/com.example.payment.made/v2-v3.html",
			"types/com.example.stock.moved/v1.html",
			"types/com.example.stock.moved/v1-v2.html",
		}},
	} {
		site := build(t, c.dir)
		for _, p := range c.pages {
			got, ok := site.Files[p]
			if !ok {
				t.Fatalf("no %s in the site; it has %v", p, site.Paths())
			}
			golden := filepath.Join("testdata", "golden", c.name, filepath.FromSlash(p))
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./docsite -update)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("%s differs from %s (-want +got); if intended, run go test ./docsite -update:\n%s", p, golden, diff)
			}
		}
	}
}

func TestFilesOfTheSite(t *testing.T) {
	want := []string{
		"assets/search-index.js",
		"assets/search.js",
		"assets/style.css",
		"index.html",
		"search-index.json",
		"types/com.example.order.paid/index.html",
		"types/com.example.order.paid/v1.html",
		"types/com.example.order.placed/index.html",
		"types/com.example.order.placed/v1-v2.html",
		"types/com.example.order.placed/v1.html",
		"types/com.example.order.placed/v2.html",
		"types/com.example.order.shipped/index.html",
		"types/com.example.order.shipped/v1.html",
	}
	if diff := cmp.Diff(want, build(t, "../examples/orders").Paths()); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}

// The same catalog gives the same bytes, run after run (compat findings
// and counterexamples included).
func TestDeterministic(t *testing.T) {
	for _, dir := range []string{"../examples/orders", "testdata/shop"} {
		a, b := build(t, dir), build(t, dir)
		if diff := cmp.Diff(a.Paths(), b.Paths()); diff != "" {
			t.Fatalf("%s: file lists differ:\n%s", dir, diff)
		}
		for _, p := range a.Paths() {
			if !bytes.Equal(a.Files[p], b.Files[p]) {
				t.Errorf("%s: %s differs between two runs:\n%s", dir, p, cmp.Diff(string(a.Files[p]), string(b.Files[p])))
			}
		}
	}
}

var scriptTag = regexp.MustCompile(`(?i)<script\b[^>]*>`)

// Text from schemas, event.yaml and examples is escaped wherever it
// shows: a description holding <script> does not run, a property named
// like an <img> tag does not become one.
func TestEscaping(t *testing.T) {
	site := build(t, "testdata/shop")
	hostile := []string{"<script>alert", "<img src=x", "<i>added</i>", "<b>not bold</b>", "</pre><script>"}
	for _, p := range site.Paths() {
		text := string(site.Files[p])
		for _, h := range hostile {
			if strings.Contains(text, h) {
				t.Errorf("%s contains %q unescaped", p, h)
			}
		}
		if !strings.HasSuffix(p, ".html") {
			continue
		}
		tags := scriptTag.FindAllString(text, -1)
		want := []string{`<script src="` + rootOf(p) + `assets/search-index.js">`, `<script src="` + rootOf(p) + `assets/search.js">`}
		if diff := cmp.Diff(want, tags); diff != "" {
			t.Errorf("%s: script tags (-want +got):\n%s", p, diff)
		}
	}
	page := string(site.Files["types/com.shop.note.added/v1.html"])
	for _, want := range []string{
		`Free text. &lt;script&gt;alert(&#39;field&#39;)&lt;/script&gt;`,
		`&lt;img src=x onerror=alert(&#39;name&#39;)&gt;`,
		`&#34;&lt;/script&gt;&lt;script&gt;alert(&#39;enum&#39;)&lt;/script&gt;&#34;`,
		`&lt;/pre&gt;&lt;script&gt;alert(&#39;example&#39;)&lt;/script&gt;`,
		`Note &lt;i&gt;added&lt;/i&gt;`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("note v1 page lacks the escaped text %s", want)
		}
	}
	idx := string(site.Files["types/com.shop.note.added/index.html"])
	if !strings.Contains(idx, `&lt;script&gt;alert(&#39;event.yaml&#39;)&lt;/script&gt; &lt;b&gt;not bold&lt;/b&gt; &amp; more`) {
		t.Error("the event.yaml description is not shown escaped on the type page")
	}
	js := string(site.Files["assets/search-index.js"])
	if strings.Contains(js, "<") || strings.Contains(js, ">") {
		t.Error("search-index.js holds a raw < or >: it must be \\u003c-escaped")
	}
	if !strings.Contains(js, `\u003cimg src=x onerror=alert('name')\u003e`) {
		t.Error("the hostile field name is not in the search index")
	}
	// The search script builds results with textContent, never innerHTML.
	sjs := string(site.Files["assets/search.js"])
	if strings.Contains(sjs, "innerHTML") || strings.Contains(sjs, "insertAdjacentHTML") || strings.Contains(sjs, "document.write") {
		t.Error("search.js must not parse index text as HTML")
	}
}

func rootOf(p string) string {
	return strings.Repeat("../", strings.Count(p, "/"))
}

// Every relative link of every page leads to a file of the site (or an
// anchor of it), so the site works from file:// and any static server.
func TestLinks(t *testing.T) {
	for _, dir := range []string{"../examples/orders", "testdata/shop"} {
		site := build(t, dir)
		href := regexp.MustCompile(`(?:href|src)="([^"]*)"`)
		ids := map[string]map[string]bool{}
		idRE := regexp.MustCompile(` id="([^"]*)"`)
		for _, p := range site.Paths() {
			ids[p] = map[string]bool{}
			for _, m := range idRE.FindAllStringSubmatch(string(site.Files[p]), -1) {
				ids[p][m[1]] = true
			}
		}
		for _, p := range site.Paths() {
			if !strings.HasSuffix(p, ".html") {
				continue
			}
			for _, m := range href.FindAllStringSubmatch(string(site.Files[p]), -1) {
				link := m[1]
				if strings.Contains(link, "://") {
					t.Errorf("%s: absolute link %s", p, link)
					continue
				}
				target, frag, _ := strings.Cut(link, "#")
				if target == "" {
					target = p
				} else {
					target = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(p), target)))
				}
				if _, ok := site.Files[target]; !ok {
					t.Errorf("%s: link %s leads to %s, not a file of the site", p, link, target)
					continue
				}
				if frag != "" && !ids[target][frag] {
					t.Errorf("%s: link %s: %s has no id %q", p, link, target, frag)
				}
			}
		}
	}
}

// The version-to-version page shows the added field, and for a breaking
// change the gate's findings with their counterexamples.
func TestDiffPages(t *testing.T) {
	orders := build(t, "../examples/orders")
	d := string(orders.Files["types/com.example.order.placed/v1-v2.html"])
	for _, want := range []string{
		`<tr class="change-added">`, `<code>channel</code>`, `<span class="badge added">+1 added</span>`,
		`No findings: v1 and v2 are compatible`,
	} {
		if !strings.Contains(d, want) {
			t.Errorf("orders v1-v2 page lacks %s", want)
		}
	}
	shop := build(t, "testdata/shop")
	d = string(shop.Files["types/com.shop.cart.checked-out/v1-v2.html"])
	for _, want := range []string{
		`<code class="rule">required-property-added</code>`,
		`<code class="rule">enum-value-removed</code>`,
		`<code class="rule">max-length-decreased</code>`,
		`Approved in evtool.yaml: coupon codes never exceeded 12 characters`,
		`Counterexample: a document the writer's schema accepts and the reader's rejects`,
		`&#34;method&#34;: &#34;paypal&#34;`,
		`values removed: &#34;paypal&#34;`,
		`required: no → yes`,
		`<span class="badge bad">2 breaking</span>`,
	} {
		if !strings.Contains(d, want) {
			t.Errorf("shop v1-v2 page lacks %s", want)
		}
	}
	// FULL_TRANSITIVE: v3 against v1 shows on the v2 -> v3 page.
	d = string(shop.Files["types/com.shop.cart.checked-out/v2-v3.html"])
	for _, want := range []string{`v3 against earlier versions`, `<span class="pair">v1 → v3</span>`, `breaking against earlier versions`} {
		if !strings.Contains(d, want) {
			t.Errorf("shop v2-v3 page lacks %s", want)
		}
	}
	// Mode NONE: the change is listed, no verdict.
	d = string(shop.Files["types/com.shop.ping.sent/v1-v2.html"])
	for _, want := range []string{`type: integer → string`, `not required by NONE`} {
		if !strings.Contains(d, want) {
			t.Errorf("ping v1-v2 page lacks %s", want)
		}
	}
	idx := string(shop.Files["index.html"])
	for _, want := range []string{`<span class="badge bad">4 breaking</span>`, `<span class="badge muted">2 approved</span>`, `not checked`} {
		if !strings.Contains(idx, want) {
			t.Errorf("shop index lacks %s", want)
		}
	}
}

func TestFieldTable(t *testing.T) {
	cat := load(t, "testdata/shapes")
	v := cat.Types[0].Versions[0]
	files, closeFiles := fieldFiles(cat)
	defer closeFiles()
	_, rows, truncated := fieldTable(files, v.Compiled)
	if truncated {
		t.Error("truncated")
	}
	type row struct {
		Path, Type       string
		Property, Req    bool
		Enum, Cons       []string
		Title, Desc, Ref string
	}
	var got []row
	for _, f := range rows {
		got = append(got, row{f.Path, f.Type, f.Property, f.Required, f.Enum, f.Constraints, f.Title, f.Description, f.RefName})
	}
	want := []row{
		{Path: "zeta", Type: "integer", Property: true, Cons: []string{"> 0", "multiple of 5"}},
		{Path: "tree", Type: "object", Property: true, Req: true, Title: "Node", Ref: "Node"},
		{Path: "tree.value", Type: "string", Property: true},
		{Path: "tree.children", Type: "array", Property: true, Cons: []string{"unique items"}},
		{Path: "tree.children[]", Type: "object", Title: "Node", Ref: "Node", Cons: []string{"recursive: same structure as tree"}},
		{Path: "pair", Type: "array", Property: true, Cons: []string{"no other items"}},
		{Path: "pair[0]", Type: "string"},
		{Path: "pair[1]", Type: "number"},
		{Path: "labels", Type: "object", Property: true},
		{Path: "labels.[/^x-/]", Type: "string", Property: true},
		{Path: "labels.*", Type: "integer", Property: true},
		{Path: "payment", Type: "variants", Property: true, Cons: []string{"exactly one of 2 variants"}},
		{Path: "payment {oneOf 1}", Type: "object"},
		{Path: "payment {oneOf 1}.kind", Type: "string", Property: true, Req: true, Cons: []string{`= "card"`}},
		{Path: "payment {oneOf 1}.last4", Type: "string", Property: true, Cons: []string{"length 4"}},
		{Path: "payment {oneOf 2}", Type: "object"},
		{Path: "payment {oneOf 2}.kind", Type: "string", Property: true, Req: true, Cons: []string{`= "iban"`}},
		{Path: "payment {oneOf 2}.iban", Type: "string", Property: true},
		{Path: "alpha", Type: "null | string", Property: true, Cons: []string{`default "a"`, "deprecated"}},
		{Path: "extra", Type: "string", Property: true, Req: true, Desc: "From allOf."},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	seen := map[string]bool{}
	for _, f := range rows {
		if seen[f.Anchor] {
			t.Errorf("anchor %s used twice", f.Anchor)
		}
		seen[f.Anchor] = true
	}
}

func TestDiffFieldsOrder(t *testing.T) {
	f := func(p, typ string) Field { return Field{FieldDoc: format.FieldDoc{Path: p, Type: typ, Property: true}} }
	old := []Field{f("a", "string"), f("b", "string"), f("b.x", "string"), f("c", "integer")}
	new := []Field{f("a", "string"), f("c", "string"), f("d", "boolean")}
	var got []string
	for _, c := range diffFields(old, new) {
		got = append(got, c.Kind+" "+c.Path+" "+strings.Join(c.Details, "; "))
	}
	want := []string{"removed b ", "removed b.x ", "changed c type: integer → string", "added d "}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
}

func TestSearchIndex(t *testing.T) {
	site := build(t, "../examples/orders")
	var entries []searchEntry
	if err := json.Unmarshal(site.Files["search-index.json"], &entries); err != nil {
		t.Fatal(err)
	}
	find := func(kind, name, typ string) *searchEntry {
		for i := range entries {
			if entries[i].Kind == kind && entries[i].Name == name && entries[i].Type == typ {
				return &entries[i]
			}
		}
		return nil
	}
	if e := find("type", "com.example.order.placed", "com.example.order.placed"); e == nil || e.URL != "types/com.example.order.placed/index.html" {
		t.Errorf("type entry: %+v", e)
	}
	e := find("field", "channel", "com.example.order.placed")
	if e == nil || !cmp.Equal(e.Versions, []int{2}) || e.URL != "types/com.example.order.placed/v2.html#f-channel" {
		t.Errorf("channel entry: %+v", e)
	}
	e = find("field", "items[].unitPrice.currency", "com.example.order.placed")
	if e == nil || !cmp.Equal(e.Versions, []int{1, 2}) {
		t.Errorf("currency entry: %+v", e)
	}
	js := string(site.Files["assets/search-index.js"])
	if !strings.HasPrefix(js, "// Search index of evtool docs (generated).\nwindow.EVTOOL_SEARCH = [") {
		t.Errorf("search-index.js starts %.80q", js)
	}
}

func TestWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "site")
	site := build(t, "../examples/orders")
	if err := site.Write(dir); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(mine, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A smaller site: the pages it no longer has go, other files stay.
	delete(site.Files, "types/com.example.order.shipped/index.html")
	delete(site.Files, "types/com.example.order.shipped/v1.html")
	if err := site.Write(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "types/com.example.order.shipped")); !os.IsNotExist(err) {
		t.Errorf("the dropped type's directory is still there: %v", err)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("a file evtool did not write was removed: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "index.html")); err != nil || !bytes.Equal(b, site.Files["index.html"]) {
		t.Errorf("index.html not written: %v", err)
	}
	// A non-empty directory evtool did not write is refused.
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := site.Write(other); err == nil || !strings.Contains(err.Error(), "not written by evtool docs") {
		t.Errorf("writing into a foreign directory: %v", err)
	}
}

func TestParagraphs(t *testing.T) {
	got := paragraphs("a `b` c\nd\n\n\ne `unclosed")
	want := [][]span{{{Text: "a "}, {Text: "b", Code: true}, {Text: " c d"}}, {{Text: "e `unclosed"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Field ids are unique even when a name is what a suffix would make
// ("items-2" next to items and items[]), and names in other scripts get
// ids of their own.
func TestFieldAnchorsUnique(t *testing.T) {
	c := jsonschema.NewCompiler()
	doc := map[string]any{"type": "object", "properties": map[string]any{
		"items":   map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		"items-2": map[string]any{"type": "string"},
		"Ä":       map[string]any{"type": "string"},
		"Ö":       map[string]any{"type": "string"},
	}}
	if err := c.AddResource("urn:t", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("urn:t")
	if err != nil {
		t.Fatal(err)
	}
	cat := load(t, "testdata/shapes")
	files, closeFiles := fieldFiles(cat)
	defer closeFiles()
	_, rows, _ := fieldTable(files, jsformat.New(s, nil))
	got := map[string]string{}
	for _, r := range rows {
		if _, dup := got[r.Anchor]; dup {
			t.Fatalf("id %s used twice: %+v", r.Anchor, rows)
		}
		got[r.Anchor] = r.Path
	}
	if got["f-u00C4"] != "Ä" || got["f-u00D6"] != "Ö" || len(got) != len(rows) {
		t.Fatalf("ids %v", got)
	}
}

// Avro and Protobuf versions get field tables with what their formats
// carry (Avro: type, default, doc, logical type; Protobuf: number, type,
// label, json_name) and diffs between versions.
func TestFormatFields(t *testing.T) {
	m, err := buildModel(load(t, "testdata/formats"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]*typeModel{}
	for _, tm := range m.Types {
		types[tm.Name] = tm
	}
	row := func(v *versionModel, path string) *Field {
		for i := range v.Fields {
			if v.Fields[i].Path == path {
				return &v.Fields[i]
			}
		}
		t.Fatalf("v%d has no field %s: %v", v.Number, path, v.Fields)
		return nil
	}
	has := func(f *Field, want ...string) {
		t.Helper()
		for _, w := range want {
			if !slices.Contains(f.Constraints, w) {
				t.Errorf("%s: constraints %q lack %q", f.Path, f.Constraints, w)
			}
		}
	}
	pay := types["com.example.payment.made"]
	v3 := pay.Versions[2]
	amount := row(v3, "amount")
	if amount.Type != "bytes" || amount.Required || amount.Description != "The amount paid, exact." {
		t.Errorf("amount: %+v", amount)
	}
	has(amount, `default: "\u0000"`, "logical type: decimal(12, 2)")
	if f := row(v3, "orderId"); !f.Required || f.Description != "The order paid for." {
		t.Errorf("orderId: %+v", f)
	}
	if f := row(v3, "method{Card}.network"); f.Type != "enum Network" || len(f.Enum) != 3 {
		t.Errorf("method{Card}.network: %+v", f)
	}
	has(row(v3, "capturedAt"), "logical type: timestamp-millis")
	if f := row(v3, "fee"); f.Type != "union [null, bytes (decimal(6, 2))]" {
		t.Errorf("fee: %+v", f)
	}
	if v3.ContentType != "application/avro" || v3.Format != "Avro" {
		t.Errorf("v3: %s %s", v3.Format, v3.ContentType)
	}

	stock := types["com.example.stock.moved"]
	q := row(stock.Versions[0], "quantity")
	if q.Type != "int32" {
		t.Errorf("quantity: %+v", q)
	}
	has(q, "number: 2", "json_name: qty")
	has(row(stock.Versions[0], "lots"), "label: repeated")
	has(row(stock.Versions[1], "reason"), "label: optional", "number: 4")

	changes := func(tm *typeModel, i int) map[string]Change {
		out := map[string]Change{}
		for _, c := range tm.Diffs[i].Changes {
			out[c.Kind+" "+c.Path] = c
		}
		return out
	}
	pc := changes(stock, 0)
	if c, ok := pc["changed quantity"]; !ok || !slices.Contains(c.Details, "type: int32 → int64") {
		t.Errorf("proto diff: %v", pc)
	}
	if _, ok := pc["removed lots"]; !ok {
		t.Errorf("proto diff: %v", pc)
	}
	if _, ok := pc["added reason"]; !ok {
		t.Errorf("proto diff: %v", pc)
	}
	ac := changes(pay, 0)
	if c, ok := ac["changed attempts"]; !ok || !slices.Contains(c.Details, "type: int → long") {
		t.Errorf("avro diff: %v", ac)
	}
	if c, ok := ac["changed status"]; !ok || !slices.Contains(c.Details, `values added: "REFUNDED"`) {
		t.Errorf("avro diff: %v", ac)
	}
	if _, ok := ac["added method{BankTransfer}.iban"]; !ok {
		t.Errorf("avro diff: %v", ac)
	}
}
