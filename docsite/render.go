package docsite

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"strings"

	"github.com/evtool/evtool/report"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets/style.css assets/search.js
var assetFS embed.FS

type crumb struct{ Name, URL string }

// page is what a template sees.
type page struct {
	Site      *siteModel
	Root      string // relative path from the page to the site root
	PageTitle string
	Crumbs    []crumb
	Type      *typeModel
	Version   *versionModel
	Diff      *diffModel
}

var funcs = template.FuncMap{
	"typeURL":    typeURL,
	"versionURL": func(v *versionModel) string { return escapeURL(v.Type.Dir + "/" + v.Page) },
	"depth": func(d int) int {
		if d > 8 {
			return 8
		}
		return d
	},
	"parentSegs": func(p string) []string {
		par, _ := splitPath(p)
		return splitAfterDots(par)
	},
	"leaf": func(p string) string { _, leaf := splitPath(p); return leaf },
	"anyReadBy": func(fs []Field) bool {
		for _, f := range fs {
			if len(f.ReadBy) > 0 {
				return true
			}
		}
		return false
	},
	"errorsIn": func(fs []findingView) int {
		n := 0
		for _, f := range fs {
			if f.Severity == string(report.SeverityError) && f.Ignored == "" {
				n++
			}
		}
		return n
	},
	"paragraphs": paragraphs,
}

// splitPath splits a field path before its last segment:
// "items[].unitPrice.currency" -> "items[].unitPrice.", "currency".
func splitPath(p string) (string, string) {
	if strings.HasSuffix(p, "]") || strings.HasSuffix(p, "}") {
		open := strings.LastIndexAny(p, "[{")
		if open > 0 {
			return p[:open], p[open:]
		}
		return "", p
	}
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[:i+1], p[i+1:]
	}
	return "", p
}

// splitAfterDots cuts a path after each '.', so a browser may wrap a
// long path between its segments.
func splitAfterDots(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '.')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// span is a piece of prose: text, or code between backticks.
type span struct {
	Text string
	Code bool
}

// paragraphs splits a description into paragraphs (blank lines) of text
// and `code` spans; the template escapes every piece.
func paragraphs(s string) [][]span {
	var out [][]span
	for _, para := range strings.Split(strings.ReplaceAll(strings.TrimSpace(s), "\r\n", "\n"), "\n\n") {
		para = strings.Join(strings.Fields(para), " ")
		if para == "" {
			continue
		}
		var spans []span
		parts := strings.Split(para, "`")
		if len(parts)%2 == 0 { // an unmatched backtick: plain text
			parts = []string{para}
		}
		for i, p := range parts {
			if p != "" {
				spans = append(spans, span{Text: p, Code: i%2 == 1})
			}
		}
		out = append(out, spans)
	}
	return out
}

func render(m *siteModel) (*Site, error) {
	base, err := template.New("").Funcs(funcs).ParseFS(templateFS, "templates/layout.html")
	if err != nil {
		return nil, err
	}
	tmpl := map[string]*template.Template{}
	for _, name := range []string{"index", "type", "version", "diff"} {
		t, err := base.Clone()
		if err != nil {
			return nil, err
		}
		if tmpl[name], err = t.ParseFS(templateFS, "templates/"+name+".html"); err != nil {
			return nil, err
		}
	}
	site := &Site{Files: map[string][]byte{}}
	exec := func(name, file string, p *page) error {
		var b bytes.Buffer
		if err := tmpl[name].ExecuteTemplate(&b, "layout", p); err != nil {
			return fmt.Errorf("rendering %s: %w", file, err)
		}
		site.Files[file] = b.Bytes()
		return nil
	}

	if err := exec("index", "index.html", &page{Site: m, PageTitle: "Event types"}); err != nil {
		return nil, err
	}
	const up = "../../"
	for _, t := range m.Types {
		home := crumb{Name: t.Name, URL: "index.html"}
		if err := exec("type", t.Dir+"/index.html", &page{Site: m, Root: up, PageTitle: t.Name, Type: t,
			Crumbs: []crumb{{Name: t.Name}}}); err != nil {
			return nil, err
		}
		for _, v := range t.Versions {
			if err := exec("version", t.Dir+"/"+v.Page, &page{Site: m, Root: up, PageTitle: fmt.Sprintf("%s v%d", t.Name, v.Number),
				Type: t, Version: v, Crumbs: []crumb{home, {Name: fmt.Sprintf("v%d", v.Number)}}}); err != nil {
				return nil, err
			}
		}
		for _, d := range t.Diffs {
			if err := exec("diff", t.Dir+"/"+d.Page, &page{Site: m, Root: up,
				PageTitle: fmt.Sprintf("%s v%d → v%d", t.Name, d.Old.Number, d.New.Number),
				Type:      t, Diff: d, Crumbs: []crumb{home, {Name: fmt.Sprintf("v%d → v%d", d.Old.Number, d.New.Number)}}}); err != nil {
				return nil, err
			}
		}
	}

	idx, err := json.Marshal(searchIndex(m)) // escapes <, > and & as \u00xx
	if err != nil {
		return nil, err
	}
	site.Files["search-index.json"] = append(idx, '\n')
	site.Files["assets/search-index.js"] = []byte("// Search index of evtool docs (generated).\nwindow.EVTOOL_SEARCH = " + string(idx) + ";\n")
	for _, name := range []string{"style.css", "search.js"} {
		b, err := assetFS.ReadFile("assets/" + name)
		if err != nil {
			return nil, err
		}
		site.Files["assets/"+name] = b
	}
	return site, nil
}
