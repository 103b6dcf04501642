package docsite

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/jsonvalue"
)

// Field is one row of a version's field table: a place in the event's
// data and what the schema says about it (format.FieldDoc, the same rows
// for every format), and where it is on its page and who reads it.
type Field struct {
	format.FieldDoc
	// Anchor is the field's HTML id on its version page.
	Anchor string
	// ReadBy names the consumers whose contracts read the field (or a
	// part of it, or the object it is in) with this version.
	ReadBy []string
}

// assignAnchors gives every row a unique id: a suffix -N can itself be a
// field's id ("items" and "items[]" give f-items and f-items-2, and a
// field may be named "items-2"), so every candidate is checked against
// all ids taken.
func assignAnchors(rows []Field) {
	taken := map[string]bool{}
	for i := range rows {
		base := anchorOf(rows[i].Path)
		a := base
		for n := 2; taken[a]; n++ {
			a = fmt.Sprintf("%s-%d", base, n)
		}
		taken[a] = true
		rows[i].Anchor = a
	}
}

// anchorOf makes an HTML id from a path: "f-" and the path with runs of
// characters other than letters, digits, '-' and '_' turned into '.';
// other letters and digits (Ä) are spelled as their code point (u00C4),
// so ids stay ASCII and names in other scripts stay apart.
func anchorOf(path string) string {
	var sb strings.Builder
	sb.WriteString("f-")
	dot := false
	for _, r := range path {
		ascii := r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
		if ascii || r >= 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			if dot && sb.Len() > 2 {
				sb.WriteByte('.')
			}
			dot = false
			if ascii {
				sb.WriteRune(r)
			} else {
				fmt.Fprintf(&sb, "u%04X", r)
			}
			continue
		}
		dot = true
	}
	return sb.String()
}

// jsonText renders a value compactly, map keys sorted.
func jsonText(v any) string {
	b, err := jsonvalue.Marshal(v, "")
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
