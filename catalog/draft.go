package catalog

import (
	"errors"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
)

// Draft is a JSON Schema draft, the dialect of the format that has them
// (format.Dialects): what a schema without `$schema` is read as
// (evtool.yaml's default_draft, Catalog.Draft).
type Draft = format.Dialect

// Drafts are the drafts evtool reads, newest first.
var Drafts = draftsOf(dialects())

// DefaultDraft is read when `$schema` is absent and nothing says otherwise.
var DefaultDraft = defaultOf(dialects())

// ParseDraft accepts a draft's name ("2020-12", "2019-09", "7", "6", "4"),
// its usual spellings ("draft-07", "draft7", "draft2020-12") or its
// meta-schema URL; "" is the default.
func ParseDraft(s string) (Draft, error) {
	d := dialects()
	if d == nil {
		if s == "" {
			return Draft{}, nil
		}
		return Draft{}, errors.New("no schema format reads drafts")
	}
	return d.ParseDialect(s)
}

// dialects is the provider of the format with dialects (JSON Schema's
// drafts); nil when none has.
func dialects() format.Dialects {
	for _, p := range formats.All() {
		if d, ok := p.(format.Dialects); ok {
			return d
		}
	}
	return nil
}

func draftsOf(d format.Dialects) []Draft {
	if d == nil {
		return nil
	}
	return d.Dialects()
}

func defaultOf(d format.Dialects) Draft {
	if d == nil {
		return Draft{}
	}
	return d.DefaultDialect()
}
