package jsoncompat

import (
	"strings"
	"testing"

	"github.com/evtool/evtool/internal/jsonstrict"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// compileDoc compiles a schema document under a virtual URL, as the
// catalog does.
func compileDoc(t testing.TB, name, text string) *Side {
	t.Helper()
	doc, err := jsonstrict.Decode([]byte(text))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	s, err := compileValue(name, doc)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	// As in production: no compiled closed view; the lenient closure is
	// checked on documents (TestClosedOK checks that against Close).
	return NewSide(s, nil)
}

// compileClosed compiles Close(text), the lenient profile's writer.
func compileClosed(t testing.TB, name, text string) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonstrict.Decode([]byte(text))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	closed, err := compileValue(name, Close(doc))
	if err != nil {
		t.Fatalf("%s (closed): %v", name, err)
	}
	return closed
}

func compileValue(name string, doc any) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	u := "file:///evtool-catalog/" + name
	if err := c.AddResource(u, doc); err != nil {
		return nil, err
	}
	return c.Compile(u)
}

func profileOf(s string) string {
	if strings.EqualFold(s, "strict") {
		return ProfileStrict
	}
	return ProfileLenient
}
