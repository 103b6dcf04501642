package jsonschema

import (
	"fmt"
	"strings"

	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// Draft is a JSON Schema draft: the one a schema without `$schema` is read
// as (evtool.yaml's default_draft, `compat diff --default-draft`).
type Draft struct {
	// Name is how evtool writes it ("2020-12", "7").
	Name string
	// URL is its meta-schema, the value of `$schema`.
	URL   string
	draft *jsonschema.Draft
}

// Drafts are the drafts evtool reads, newest first.
var Drafts = []Draft{
	{"2020-12", "https://json-schema.org/draft/2020-12/schema", jsonschema.Draft2020},
	{"2019-09", "https://json-schema.org/draft/2019-09/schema", jsonschema.Draft2019},
	{"7", "http://json-schema.org/draft-07/schema#", jsonschema.Draft7},
	{"6", "http://json-schema.org/draft-06/schema#", jsonschema.Draft6},
	{"4", "http://json-schema.org/draft-04/schema#", jsonschema.Draft4},
}

// DefaultDraft is read when `$schema` is absent and nothing says otherwise.
// Confluent's and Karapace's registries read such schemas as draft-07: a
// catalog taken from them says default_draft: 7.
var DefaultDraft = Drafts[0]

// ParseDraft accepts a draft's name ("2020-12", "2019-09", "7", "6", "4"),
// its usual spellings ("draft-07", "draft7", "draft2020-12") or its
// meta-schema URL; "" is the default.
func ParseDraft(s string) (Draft, error) {
	key := strings.ToLower(strings.TrimSpace(s))
	if key == "" {
		return DefaultDraft, nil
	}
	for _, d := range Drafts {
		if key == d.URL || key == strings.TrimSuffix(d.URL, "#") {
			return d, nil
		}
	}
	key = strings.TrimPrefix(strings.TrimPrefix(key, "draft"), "-")
	key = strings.TrimLeft(key, "0")
	for _, d := range Drafts {
		if key == d.Name {
			return d, nil
		}
	}
	return Draft{}, fmt.Errorf("unknown JSON Schema draft %q: use one of %s", s, DraftNames())
}

// DraftNames lists the drafts' names for messages and completion.
func DraftNames() string {
	names := make([]string, len(Drafts))
	for i, d := range Drafts {
		names[i] = d.Name
	}
	return strings.Join(names, ", ")
}
