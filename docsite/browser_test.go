package docsite

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The browser test serves the generated site of examples/orders on
// 127.0.0.1 and drives headless Chromium (Debian's chromium) through it as
// a reader would: the index, a type, the v1 -> v2 diff, a search. It
// reads each page's DOM after its scripts ran (--dump-dom) and saves
// screenshots (--screenshot) in the test's temp dir, or in
// $EVTOOL_SCREENSHOTS when set, logging their paths. Without Chromium it
// skips: apt-get install chromium (or set EVTOOL_CHROMIUM to a binary).

func chromiumPath() string {
	if p := os.Getenv("EVTOOL_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

type browser struct {
	t       *testing.T
	bin     string
	profile string
	shots   string
	wg      sync.WaitGroup
}

func (b *browser) run(args ...string) []byte {
	b.t.Helper()
	out, err := b.exec(b.profile, args...)
	if err != nil {
		b.t.Fatal(err)
	}
	return out
}

// exec runs one headless Chromium with its own profile directory (a
// profile is locked by the browser using it).
func (b *browser) exec(profile string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--no-default-browser-check",
		"--hide-scrollbars", "--user-data-dir=" + profile}
	cmd := exec.CommandContext(ctx, b.bin, append(base, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("chromium %v: %v\n%s", args, err, stderr.String())
	}
	return out, nil
}

// dom loads a page and returns its DOM after the page's scripts ran.
func (b *browser) dom(u string) string {
	b.t.Helper()
	return string(b.run("--dump-dom", u))
}

// screenshot saves a PNG of a page, in the background (wait with
// b.wg.Wait): the reading of pages goes on meanwhile.
func (b *browser) screenshot(name, u string, height int) {
	profile := b.t.TempDir()
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		p := filepath.Join(b.shots, name+".png")
		if _, err := b.exec(profile, "--screenshot="+p, "--window-size=1280,"+strconv.Itoa(height), u); err != nil {
			b.t.Error(err)
			return
		}
		if info, err := os.Stat(p); err != nil || info.Size() == 0 {
			b.t.Errorf("no screenshot at %s: %v", p, err)
			return
		}
		b.t.Logf("screenshot of %s: %s", u, p)
	}()
}

// link finds the href of the first <a> whose opening tag matches attrs
// and whose text is text, resolved against the page's URL.
func link(t *testing.T, dom, page, attrs, text string) string {
	t.Helper()
	re := regexp.MustCompile(`<a [^>]*` + attrs + `[^>]*>` + regexp.QuoteMeta(text) + `</a>`)
	m := re.FindString(dom)
	if m == "" {
		t.Fatalf("no link %q (%s) on %s", text, attrs, page)
	}
	href := regexp.MustCompile(`href="([^"]*)"`).FindStringSubmatch(m)
	if href == nil {
		t.Fatalf("link %q on %s has no href", text, page)
	}
	base, err := url.Parse(page)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := url.Parse(strings.ReplaceAll(href[1], "&amp;", "&"))
	if err != nil {
		t.Fatal(err)
	}
	return base.ResolveReference(ref).String()
}

func TestBrowser(t *testing.T) {
	bin := chromiumPath()
	if bin == "" {
		t.Skip("headless Chromium not found (apt-get install chromium, or set EVTOOL_CHROMIUM): browser test skipped")
	}
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	shots := os.Getenv("EVTOOL_SCREENSHOTS")
	if shots == "" {
		shots = filepath.Join(t.TempDir(), "screenshots")
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	b := &browser{t: t, bin: bin, profile: t.TempDir(), shots: shots}

	root := t.TempDir()
	for name, dir := range map[string]string{"orders": "../examples/orders", "shop": "testdata/shop"} {
		if err := build(t, dir).Write(filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(root))) // 127.0.0.1, a free port
	defer srv.Close()
	defer b.wg.Wait() // screenshots need the server
	if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") {
		t.Fatalf("server is not on 127.0.0.1: %s", srv.URL)
	}

	// The index lists the types; follow one.
	index := srv.URL + "/orders/index.html"
	dom := b.dom(index)
	for _, want := range []string{"com.example.order.paid", "team-checkout", "FULL_TRANSITIVE"} {
		if !strings.Contains(dom, want) {
			t.Errorf("index lacks %q", want)
		}
	}
	b.screenshot("1-index", index, 700)
	typePage := link(t, dom, index, `class="type-link"`, "com.example.order.placed")

	// The type page links to the v1 -> v2 diff.
	dom = b.dom(typePage)
	if !strings.Contains(dom, "team-checkout") || !strings.Contains(dom, "Fields of v2") {
		t.Errorf("type page %s does not show the owner and the latest fields", typePage)
	}
	b.screenshot("2-type", typePage, 1000)
	diffPage := link(t, dom, typePage, `class="diff-link"`, "v1 → v2")

	// The diff page shows the added field and the verdict.
	dom = b.dom(diffPage)
	added := regexp.MustCompile(`(?s)<tr class="change-added">.*?</tr>`).FindString(dom)
	if !strings.Contains(added, "<code>channel</code>") || !strings.Contains(added, `<span class="badge added">added</span>`) {
		t.Errorf("the diff page %s does not show channel as added; row: %q", diffPage, added)
	}
	if !strings.Contains(dom, "No findings: v1 and v2 are compatible") {
		t.Errorf("the diff page %s does not show the compat verdict", diffPage)
	}
	b.screenshot("3-diff-v1-v2", diffPage, 900)

	// Search runs in the page: ?q= fills the box, the script lists hits.
	search := srv.URL + "/orders/types/com.example.order.placed/index.html?q=currency"
	dom = b.dom(search)
	results := regexp.MustCompile(`(?s)<ol id="results"[^>]*>.*?</ol>`).FindString(dom)
	if strings.Contains(results, "hidden") || !strings.Contains(results, "<li>") {
		t.Fatalf("search shows no results: %q", results)
	}
	for _, want := range []string{`href="../../types/com.example.order.placed/v2.html#f-items.unitPrice.currency"`, `<span class="name">items[].unitPrice.currency</span>`, `<span class="name">total.currency</span>`} {
		if !strings.Contains(results, want) {
			t.Errorf("search for currency lacks %s", want)
		}
	}
	b.screenshot("4-search", search, 700)

	// A breaking change: findings and a counterexample.
	breaking := srv.URL + "/shop/types/com.shop.cart.checked-out/v1-v2.html"
	dom = b.dom(breaking)
	if !strings.Contains(dom, "enum-value-removed") || !strings.Contains(dom, `"method": "paypal"`) {
		t.Errorf("the breaking diff page does not show the finding and its counterexample")
	}
	b.screenshot("5-breaking-diff", breaking, 1100)

	// Hostile text stays text in the DOM: no element was injected.
	hostile := srv.URL + "/shop/types/com.shop.note.added/v1.html"
	dom = b.dom(hostile)
	if n := strings.Count(dom, "<script"); n != 2 {
		t.Errorf("the page has %d script elements, want the 2 of the site", n)
	}
	if strings.Contains(dom, "<img") || strings.Contains(dom, "<i>added") {
		t.Error("text from the schema became markup")
	}
	if !strings.Contains(dom, "Free text. &lt;script&gt;alert('field')&lt;/script&gt;") {
		t.Error("the hostile description is not shown as text")
	}
}
