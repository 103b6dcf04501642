package format

import (
	"errors"

	"github.com/evtool/evtool/internal/jsonstrict"
	"github.com/evtool/evtool/report"
)

// MalformedJSON is the finding of a file that is not valid JSON (err from
// jsonstrict), at the line and column it names: a JSON Schema file of a
// root, an example of any format.
func MalformedJSON(rule, file string, err error) report.Finding {
	f := report.Finding{Rule: rule, Severity: report.SeverityError, File: file, Message: "malformed JSON: " + err.Error()}
	var je *jsonstrict.Error
	if errors.As(err, &je) {
		f.Line, f.Column, f.Pointer, f.Message = je.Line, je.Column, je.Pointer, "malformed JSON: "+je.Msg
	}
	return f
}
