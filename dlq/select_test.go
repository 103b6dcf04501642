package dlq

import (
	"regexp"
	"testing"
)

// TestSelected: the selections combine (all must hold), and --error-match
// reads the record's error headers, not the placeholder inspect prints for
// a record without one.
func TestSelected(t *testing.T) {
	id, typ := "e1", "com.example.order.placed"
	withEvent := Entry{ID: &id, Type: &typ, ErrorClass: "unknown-type", Error: "boom"}
	noError := Entry{ID: &id, Type: &typ}
	atOffset := Entry{ID: &id, Partition: 2, Offset: 7}
	for _, tc := range []struct {
		name string
		e    Entry
		o    RedriveOptions
		want bool
	}{
		{"all", noError, RedriveOptions{}, true},
		{"id", withEvent, RedriveOptions{IDs: []string{"x", "e1"}}, true},
		{"other id", withEvent, RedriveOptions{IDs: []string{"x"}}, false},
		{"id and other type", withEvent, RedriveOptions{IDs: []string{"e1"}, Type: "other"}, false},
		{"type and error", withEvent, RedriveOptions{Type: typ, ErrorMatch: regexp.MustCompile(`^unknown-type: boom$`)}, true},
		{"type and other error", withEvent, RedriveOptions{Type: typ, ErrorMatch: regexp.MustCompile(`timeout`)}, false},
		{"no error header", noError, RedriveOptions{ErrorMatch: regexp.MustCompile(`error`)}, false},
		{"no error header, match anything", noError, RedriveOptions{ErrorMatch: regexp.MustCompile(``)}, true},
		{"offset", atOffset, RedriveOptions{Offsets: []Position{{1, 7}, {2, 7}}}, true},
		{"other offset", atOffset, RedriveOptions{Offsets: []Position{{2, 6}, {1, 7}}}, false},
		{"offset and other id", atOffset, RedriveOptions{Offsets: []Position{{2, 7}}, IDs: []string{"x"}}, false},
	} {
		if got := selected(tc.e, tc.o); got != tc.want {
			t.Errorf("%s: selected = %v, want %v", tc.name, got, tc.want)
		}
	}
}
