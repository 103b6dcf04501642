package dlq

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

func TestPassedMetadata(t *testing.T) {
	for _, tc := range []struct {
		name string
		meta string
		next int64
		want []int64 // nil: an error
		err  string
	}{
		{"none", "", 10, []int64{}, ""},
		{"another tool's", "consumer v3", 10, []int64{}, ""},
		{"empty list", metadataPrefix, 10, []int64{}, ""},
		{"one", metadataPrefix + "4", 10, []int64{4}, ""},
		{"ranges", metadataPrefix + "0,4,7-9", 10, []int64{0, 4, 7, 8, 9}, ""},
		{"at the commit", metadataPrefix + "10", 10, nil, "not before the committed offset 10"},
		{"range to the commit", metadataPrefix + "7-10", 10, nil, "not before the committed offset 10"},
		{"adjacent", metadataPrefix + "4,5", 10, nil, "not after the previous one"},
		{"descending", metadataPrefix + "6,4", 10, nil, "not after the previous one"},
		{"reversed range", metadataPrefix + "6-4", 10, nil, "want offset or first-last"},
		{"negative", metadataPrefix + "-4", 10, nil, "want offset or first-last"},
		{"not a number", metadataPrefix + "4,x", 10, nil, `range "x"`},
		{"empty item", metadataPrefix + "4,", 10, nil, `range ""`},
		{"huge range", metadataPrefix + "0-9999999999", 1 << 40, nil, "more than"},
	} {
		got, err := parsePassed(tc.meta, tc.next)
		if tc.want == nil {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if offs := slices.Sorted(maps.Keys(got)); !slices.Equal(offs, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, offs, tc.want)
		}
		if len(tc.want) > 0 && strings.HasPrefix(tc.meta, metadataPrefix) && encodePassed(got) != tc.meta {
			t.Errorf("%s: encoded again as %q", tc.name, encodePassed(got))
		}
	}
}

// FuzzPassedMetadata: commit metadata is outside input (any client may
// commit for the group); parsePassed never panics, and what it accepts
// encodes back to a list it reads the same.
func FuzzPassedMetadata(f *testing.F) {
	for _, s := range []string{"", "4", "0,4,7-9", "7-10", "4,5", "x", "-1", "1-"} {
		f.Add(metadataPrefix+s, int64(10))
	}
	f.Fuzz(func(t *testing.T, meta string, next int64) {
		got, err := parsePassed(meta, next)
		if err != nil {
			return
		}
		again, err := parsePassed(encodePassed(got), next)
		if err != nil || !maps.Equal(got, again) {
			t.Fatalf("%q read %v, encoded %q read %v, %v", meta, got, encodePassed(got), again, err)
		}
	})
}

func TestParsePosition(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Position
		ok   bool
	}{
		{"0@17", Position{0, 17}, true},
		{"2:5", Position{2, 5}, true},
		{"17", Position{}, false},
		{"-1@3", Position{}, false},
		{"1@-3", Position{}, false},
		{"a@b", Position{}, false},
		{"1@", Position{}, false},
		{"99999999999@1", Position{}, false},
	} {
		got, err := ParsePosition(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParsePosition(%q) = %v, %v", tc.in, got, err)
		}
		if err != nil && !strings.Contains(err.Error(), "--offset") {
			t.Errorf("ParsePosition(%q): error %q does not name the flag", tc.in, err)
		}
	}
}

// TestPassedStorableIsReadable: what a run commits as passed over, the
// next run must read back; a list it could not read would stop every
// later run of the group (exit 2), so the run refuses to commit it.
func TestPassedStorableIsReadable(t *testing.T) {
	for _, n := range []int{1, maxPassed, maxPassed + 1} {
		p := &partitionProgress{passed: map[int64]bool{}}
		for off := range int64(n) {
			p.passed[off] = true
		}
		p.next = int64(n) + 1
		storeErr := p.storable()
		_, readErr := parsePassed(p.metadata(), p.next)
		if (storeErr == nil) != (readErr == nil) {
			t.Errorf("%d passed over: storable %v, but read back: %v", n, storeErr, readErr)
		}
	}
	long := &partitionProgress{passed: map[int64]bool{}, next: 1 << 20}
	for off := int64(0); off < 2000; off += 2 {
		long.passed[off] = true
	}
	if err := long.storable(); err == nil || !strings.Contains(err.Error(), "bytes of commit metadata") {
		t.Errorf("metadata of %d bytes: storable %v", len(long.metadata()), err)
	}
}

// FuzzParsePosition: --offset is outside input; ParsePosition never
// panics, and what it accepts prints back to a value it reads the same.
func FuzzParsePosition(f *testing.F) {
	for _, s := range []string{"0@17", "2:5", "17", "-1@3", "1@", "99999999999@1", "+1@+2", "1@2@3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pos, err := ParsePosition(s)
		if err != nil {
			if !strings.Contains(err.Error(), "--offset") {
				t.Fatalf("%q: error %q does not name the flag", s, err)
			}
			return
		}
		if pos.Partition < 0 || pos.Offset < 0 {
			t.Fatalf("%q: read %v", s, pos)
		}
		again, err := ParsePosition(pos.String())
		if err != nil || again != pos {
			t.Fatalf("%q read %v, printed %q read %v, %v", s, pos, pos.String(), again, err)
		}
	})
}
