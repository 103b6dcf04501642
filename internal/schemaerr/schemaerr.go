// Package schemaerr flattens santhosh-tekuri/jsonschema validation errors
// into leaf problems: one instance JSON pointer and one message each, the
// shape every evtool finding needs.
package schemaerr

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/evtool/evtool/internal/jsonpos"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema/kind"
)

// Problem is one reason a document failed its schema.
type Problem struct {
	// Pointer locates the offending value in the document ("" is the root).
	Pointer string
	// Keyword is the failing schema keyword path, e.g. "properties/total/$ref/required".
	Keyword string
	Message string
}

// Problems returns the leaf problems of err, sorted by pointer and
// deduplicated. A non-validation error becomes one problem at the root.
func Problems(err error) []Problem {
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Problem{{Message: err.Error()}}
	}
	p := message.NewPrinter(language.English)
	var out []Problem
	seen := map[Problem]bool{}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			if _, isGroup := e.ErrorKind.(*kind.Group); isGroup {
				return
			}
			if ap, ok := e.ErrorKind.(*kind.AdditionalProperties); ok {
				// Point at each unexpected key, not at the object holding it.
				for _, name := range ap.Properties {
					pr := Problem{
						Pointer: jsonpos.Join(append(append([]string{}, e.InstanceLocation...), name)...),
						Keyword: strings.Join(e.ErrorKind.KeywordPath(), "/"),
						Message: fmt.Sprintf("property %q is not allowed (additionalProperties)", name),
					}
					if !seen[pr] {
						seen[pr] = true
						out = append(out, pr)
					}
				}
				return
			}
			pr := Problem{
				Pointer: jsonpos.Join(e.InstanceLocation...),
				Keyword: strings.Join(e.ErrorKind.KeywordPath(), "/"),
				Message: e.ErrorKind.LocalizedString(p),
			}
			if !seen[pr] {
				seen[pr] = true
				out = append(out, pr)
			}
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	if len(out) == 0 {
		out = append(out, Problem{Pointer: jsonpos.Join(ve.InstanceLocation...), Message: ve.ErrorKind.LocalizedString(p)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pointer < out[j].Pointer })
	return out
}

// Summary joins the problems of err into one line for short messages.
func Summary(err error) string {
	probs := Problems(err)
	parts := make([]string, len(probs))
	for i, pr := range probs {
		at := pr.Pointer
		if at == "" {
			at = "/"
		}
		parts[i] = at + ": " + pr.Message
	}
	return strings.Join(parts, "; ")
}
