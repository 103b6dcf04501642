package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/evtool/evtool/internal/jsonpos"
	"github.com/evtool/evtool/internal/jsonstrict"
)

// compareStored compares two stored states as Compare compares decoded
// ones (the ignore pointers were applied when they were stored): equal
// when their canonical files are; small differing states are decoded and
// compared by Compare, large ones leaf by leaf from their files.
func compareStored(base, other *storedState, ignore []string) (Comparison, error) {
	var unused []string
	for i, p := range ignore {
		if !base.used[i] && !other.used[i] {
			unused = append(unused, p)
		}
	}
	same, err := sameFiles(base.canon, other.canon)
	if err != nil {
		return Comparison{}, err
	}
	if same {
		return Comparison{Equal: true, UnusedIgnore: unused}, nil
	}
	if base.canonSize <= smallCanonicalState && other.canonSize <= smallCanonicalState {
		b, err := decodeFile(base.canon)
		if err != nil {
			return Comparison{}, err
		}
		o, err := decodeFile(other.canon)
		if err != nil {
			return Comparison{}, err
		}
		c := Compare(b, o, nil)
		c.UnusedIgnore = unused
		return c, nil
	}
	c, err := diffLeaves(base.canon, other.canon)
	c.UnusedIgnore = unused
	return c, err
}

func decodeFile(path string) (any, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return jsonstrict.Decode(b)
}

// sameFiles reports whether two files hold the same bytes.
func sameFiles(a, b string) (bool, error) {
	fa, err := os.Open(a)
	if err != nil {
		return false, err
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false, err
	}
	defer fb.Close()
	ra, rb := bufio.NewReaderSize(fa, 64<<10), bufio.NewReaderSize(fb, 64<<10)
	ba, bb := make([]byte, 32<<10), make([]byte, 32<<10)
	for {
		na, ea := io.ReadFull(ra, ba)
		nb, eb := io.ReadFull(rb, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false, nil
		}
		endA := errors.Is(ea, io.EOF) || errors.Is(ea, io.ErrUnexpectedEOF)
		endB := errors.Is(eb, io.EOF) || errors.Is(eb, io.ErrUnexpectedEOF)
		if ea != nil && !endA {
			return false, ea
		}
		if eb != nil && !endB {
			return false, eb
		}
		if endA || endB {
			return endA && endB, nil
		}
	}
}

// leafFrame is an open array or object of a canonical document.
type leafFrame struct {
	array     bool
	index     int    // the current element (arrays)
	key       string // the current member (objects)
	wantValue bool   // a key was read, its value not yet (objects)
	n         int    // members or elements so far
	// strs are the object's string members so far (at most maxNearPerObject);
	// near marks an object on the path of a difference: its later string
	// members are near it too.
	strs []string
	near bool
}

const maxNearPerObject = 32

// leafIter walks the leaves of a canonical document (scalars and empty
// arrays and objects) in document order, which is the same total order
// for every canonical document (see comparePaths).
type leafIter struct {
	dec   *json.Decoder
	stack []leafFrame
	// the current leaf: its path (the frames' current positions) and
	// canonical text.
	path []leafFrame
	text string
	str  *string // the leaf's value when a string
	done bool
	// near receives the string members read into objects marked near.
	near map[string]bool
}

func newLeafIter(r io.Reader) *leafIter {
	dec := json.NewDecoder(bufio.NewReaderSize(r, 64<<10))
	dec.UseNumber()
	return &leafIter{dec: dec}
}

// next moves to the next leaf; done at the end.
func (it *leafIter) next() error {
	for {
		tok, err := it.dec.Token()
		if errors.Is(err, io.EOF) {
			it.done = true
			return nil
		}
		if err != nil {
			return err
		}
		n := len(it.stack)
		if n > 0 && !it.stack[n-1].array && !it.stack[n-1].wantValue {
			if tok == json.Delim('}') {
				if it.pop() {
					return nil
				}
				continue
			}
			it.stack[n-1].key, _ = tok.(string)
			it.stack[n-1].wantValue = true
			continue
		}
		if tok == json.Delim(']') {
			if it.pop() {
				return nil
			}
			continue
		}
		if n > 0 {
			f := &it.stack[n-1]
			if f.array {
				f.index = f.n
			}
			f.wantValue = false
			f.n++
		}
		switch tok {
		case json.Delim('{'):
			it.stack = append(it.stack, leafFrame{})
		case json.Delim('['):
			it.stack = append(it.stack, leafFrame{array: true})
		default:
			it.path = append(it.path[:0], it.stack...)
			it.text = string(canonicalScalar(tok))
			it.str = nil
			if s, ok := tok.(string); ok {
				it.str = &s
				if n > 0 && !it.stack[n-1].array {
					f := &it.stack[n-1]
					if len(f.strs) < maxNearPerObject && len(s) <= 200 {
						f.strs = append(f.strs, s)
						if f.near && it.near != nil {
							it.near[s] = true
						}
					}
				}
			}
			return nil
		}
	}
}

// pop closes the innermost container; an empty one is a leaf (true).
func (it *leafIter) pop() bool {
	f := it.stack[len(it.stack)-1]
	it.stack = it.stack[:len(it.stack)-1]
	if f.n > 0 {
		return false
	}
	it.path = append(it.path[:0], it.stack...)
	it.text, it.str = "{}", nil
	if f.array {
		it.text = "[]"
	}
	return true
}

func (it *leafIter) pointer() string {
	toks := make([]string, len(it.path))
	for i, f := range it.path {
		toks[i] = f.key
		if f.array {
			toks[i] = strconv.Itoa(f.index)
		}
	}
	return jsonpos.Join(toks...)
}

// noteNear adds the strings around the current leaf to near: its path's
// keys, the string members of the objects along it (and marks them, so
// that their later string members are added as they are read), and its
// value when a string.
func (it *leafIter) noteNear(near map[string]bool) {
	for i := range it.path {
		if !it.path[i].array {
			near[it.path[i].key] = true
		}
	}
	for i := range it.stack {
		f := &it.stack[i]
		if f.array {
			continue
		}
		f.near = true
		for _, s := range f.strs {
			near[s] = true
		}
	}
	if it.str != nil && len(*it.str) <= 200 {
		near[*it.str] = true
	}
}

// comparePaths orders leaves: position by position, array indexes by
// number, object keys by bytes (canonical documents sort them so), an
// array position before an object's, a path before its extensions.
func comparePaths(a, b []leafFrame) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		switch {
		case x.array && y.array:
			if x.index != y.index {
				if x.index < y.index {
					return -1
				}
				return 1
			}
		case x.array != y.array:
			if x.array {
				return -1
			}
			return 1
		default:
			if c := strings.Compare(x.key, y.key); c != 0 {
				return c
			}
		}
	}
	return len(a) - len(b)
}

// diffLeaves compares two canonical files leaf by leaf. A difference is a
// leaf whose value differs or that one side lacks.
func diffLeaves(basePath, otherPath string) (Comparison, error) {
	fb, err := os.Open(basePath)
	if err != nil {
		return Comparison{}, err
	}
	defer fb.Close()
	fo, err := os.Open(otherPath)
	if err != nil {
		return Comparison{}, err
	}
	defer fo.Close()
	b, o := newLeafIter(fb), newLeafIter(fo)
	if err := b.next(); err != nil {
		return Comparison{}, err
	}
	if err := o.next(); err != nil {
		return Comparison{}, err
	}
	var c Comparison
	var lines []string
	near := map[string]bool{}
	b.near, o.near = near, near
	add := func(d Difference, its ...*leafIter) {
		for _, it := range its {
			if len(near) < 100*maxDifferences {
				it.noteNear(near)
			}
		}
		if len(c.Differences) >= maxDifferences {
			c.More++
			return
		}
		d.Baseline, d.Chaos = cut200(d.Baseline), cut200(d.Chaos)
		c.Differences = append(c.Differences, d)
		if d.Baseline != "" {
			lines = append(lines, fmt.Sprintf("- %s: %s", displayPointer(d.Pointer), d.Baseline))
		}
		if d.Chaos != "" {
			lines = append(lines, fmt.Sprintf("+ %s: %s", displayPointer(d.Pointer), d.Chaos))
		}
	}
	for !b.done || !o.done {
		var cmp int
		switch {
		case b.done:
			cmp = 1
		case o.done:
			cmp = -1
		default:
			cmp = comparePaths(b.path, o.path)
		}
		switch {
		case cmp == 0:
			if b.text != o.text {
				add(Difference{Pointer: b.pointer(), Baseline: b.text, Chaos: o.text}, b, o)
			}
			if err := b.next(); err != nil {
				return Comparison{}, err
			}
			if err := o.next(); err != nil {
				return Comparison{}, err
			}
		case cmp < 0:
			add(Difference{Pointer: b.pointer(), Baseline: b.text}, b)
			if err := b.next(); err != nil {
				return Comparison{}, err
			}
		default:
			add(Difference{Pointer: o.pointer(), Chaos: o.text}, o)
			if err := o.next(); err != nil {
				return Comparison{}, err
			}
		}
	}
	c.Equal = len(c.Differences) == 0
	if len(lines) > maxDiffLines {
		lines = append(lines[:maxDiffLines], fmt.Sprintf("... (%d more lines)", len(lines)-maxDiffLines))
	}
	if c.More > 0 {
		lines = append(lines, fmt.Sprintf("... (%d more differences)", c.More))
	}
	if len(lines) > 0 {
		c.Diff = "(compared leaf by leaf: the states are larger than " + stateLimitBytes(smallCanonicalState) + ")\n" + strings.Join(lines, "\n")
	}
	for s := range near {
		c.Near = append(c.Near, s)
	}
	sort.Strings(c.Near)
	return c, nil
}

func stateLimitBytes(n int64) string { return fmt.Sprintf("%d MiB", n>>20) }

func cut200(s string) string {
	if len(s) > 200 {
		return strings.ToValidUTF8(s[:200], "") + "…"
	}
	return s
}
