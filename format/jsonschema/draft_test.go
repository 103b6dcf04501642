package jsonschema

import (
	"strings"
	"testing"
)

func TestParseDraft(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", "2020-12"}, {"2020-12", "2020-12"}, {"draft2020-12", "2020-12"}, {"2019-09", "2019-09"},
		{"7", "7"}, {"07", "7"}, {"draft-07", "7"}, {"draft7", "7"}, {"Draft-7", "7"},
		{"http://json-schema.org/draft-07/schema#", "7"}, {"http://json-schema.org/draft-07/schema", "7"},
		{"6", "6"}, {"draft-04", "4"}, {"https://json-schema.org/draft/2019-09/schema", "2019-09"},
		{"8", ""}, {"2021", ""}, {"draft", ""}, {"latest", ""},
	}
	for _, c := range cases {
		d, err := ParseDraft(c.in)
		if c.want == "" {
			if err == nil || !strings.Contains(err.Error(), "2020-12, 2019-09, 7, 6, 4") {
				t.Errorf("ParseDraft(%q) = %v, %v; want an error listing the drafts", c.in, d.Name, err)
			}
			continue
		}
		if err != nil || d.Name != c.want {
			t.Errorf("ParseDraft(%q) = %q, %v; want %q", c.in, d.Name, err, c.want)
		}
	}
}
