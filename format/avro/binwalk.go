package avro

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// The walk of a binary datum by its schema, making no values: the decode
// cost check (cost.go) counts the values it passes, the map ordering
// (order.go) skips the values that hold no map. It keeps its own stack,
// so data nested as deep as its bytes allow costs memory, not goroutine
// stack, and the stack never holds more frames than values counted.

// maxWalkDepth stops the walk in data nested deeper than the library
// decodes: it counts one level for every record, union, array and map it
// is inside, as the walk's stack does, and refuses more than 1000. Past
// it the library reports the depth, and the walk's stack stays small for
// a megabyte of nested unions.
const maxWalkDepth = 2000

var (
	errMalformed = errors.New("malformed datum")
	errWalkDepth = fmt.Errorf("datum nested deeper than %d records, unions, arrays and maps", maxWalkDepth)
)

// walkFrame is a value whose children are being walked: the next field of
// a record, the items left in the current block of an array or map, or
// the one branch of a union.
type walkFrame struct {
	n *Node
	// i counts the children entered: fields, items, keys, or 1 for the
	// union's branch.
	i int
	// left is the rest of the current block of an array or map.
	left int64
	// key is the map key of the value being walked; branch the union's.
	key    []byte
	branch *Node
}

// datumWalker walks one datum at the start of src.
type datumWalker struct {
	src   []byte
	stack []walkFrame
	// count is the values entered, every item, field, key and null
	// included.
	count int64
	// limit stops the walk once count passes it (0: no limit); the stack
	// is then where it passed.
	limit int64
}

// over says the walk passed its limit.
func (w *datumWalker) over() bool { return w.limit > 0 && w.count > w.limit }

// walk walks a datum of root from w.src, leaving in w.src what follows
// it: errMalformed when the data is not a datum of root, errWalkDepth when
// it nests deeper than maxWalkDepth. It returns nil early when count
// passes limit.
func (w *datumWalker) walk(root *Node) error {
	if err := w.enter(root); err != nil {
		return err
	}
	for len(w.stack) > 0 && !w.over() {
		top := &w.stack[len(w.stack)-1]
		var next *Node
		switch top.n.Kind {
		case "record":
			if top.i < len(top.n.Fields) {
				next = top.n.Fields[top.i].Type
			}
		case "union":
			if top.i == 0 {
				next = top.branch
			}
		case "array", "map":
			if top.left == 0 {
				n, rest, err := blockCount(w.src)
				if err != nil {
					return err
				}
				w.src = rest
				if n == 0 {
					break
				}
				top.left = n
			}
			top.left--
			next = top.n.Items
			if top.n.Kind == "map" {
				next = top.n.Values
				key, rest, ok := readBytes(w.src)
				if !ok {
					return errMalformed
				}
				w.src, top.key = rest, key
				w.count++ // the key
			}
		}
		if next == nil {
			w.stack = w.stack[:len(w.stack)-1]
			continue
		}
		top.i++
		if err := w.enter(next); err != nil {
			return err
		}
	}
	return nil
}

// enter counts one value of n and consumes what n holds directly, pushing
// a frame for a value with children.
func (w *datumWalker) enter(n *Node) error {
	w.count++
	if w.over() {
		return nil
	}
	if len(w.stack) >= maxWalkDepth {
		return errWalkDepth
	}
	ok := true
	switch n.Kind {
	case "null":
	case "boolean":
		ok = len(w.src) >= 1
		if ok {
			w.src = w.src[1:]
		}
	case "int", "long", "enum":
		_, w.src, ok = readVarint(w.src)
	case "float":
		ok = len(w.src) >= 4
		if ok {
			w.src = w.src[4:]
		}
	case "double":
		ok = len(w.src) >= 8
		if ok {
			w.src = w.src[8:]
		}
	case "bytes", "string":
		_, w.src, ok = readBytes(w.src)
	case "fixed":
		ok = len(w.src) >= n.Size
		if ok {
			w.src = w.src[n.Size:]
		}
	case "union":
		var b *Node
		b, w.src, ok = unionBranch(n, w.src)
		if ok {
			w.stack = append(w.stack, walkFrame{n: n, branch: b})
		}
	case "record", "array", "map":
		w.stack = append(w.stack, walkFrame{n: n})
	default:
		return fmt.Errorf("unexpected %s", n.Kind)
	}
	if !ok {
		return errMalformed
	}
	return nil
}

// skip returns what follows the value of n at the start of src, reusing
// w's stack.
func (w *datumWalker) skip(n *Node, src []byte) ([]byte, error) {
	w.src, w.stack, w.count = src, w.stack[:0], 0
	if err := w.walk(n); err != nil {
		return nil, err
	}
	return w.src, nil
}

// unionBranch reads a union's branch index.
func unionBranch(n *Node, src []byte) (*Node, []byte, bool) {
	i, rest, ok := readVarint(src)
	if !ok || i < 0 || i >= int64(len(n.Branches)) {
		return nil, src, false
	}
	return n.Branches[i], rest, true
}

// blockCount reads the item count of an array or map block (the byte size
// after a negative count is dropped).
func blockCount(src []byte) (int64, []byte, error) {
	k, rest, ok := readVarint(src)
	if !ok || k == -k && k != 0 {
		return 0, nil, errMalformed
	}
	if k < 0 {
		k = -k
		if _, rest, ok = readVarint(rest); !ok {
			return 0, nil, errMalformed
		}
	}
	return k, rest, nil
}

// readVarint reads one zig-zag varint of at most ten bytes.
func readVarint(src []byte) (int64, []byte, bool) {
	u, n := binary.Uvarint(src)
	if n <= 0 {
		return 0, src, false
	}
	return int64(u>>1) ^ -int64(u&1), src[n:], true
}

// readBytes reads one length-prefixed bytes or string value.
func readBytes(src []byte) (value, rest []byte, ok bool) {
	n, rest, ok := readVarint(src)
	if !ok || n < 0 || n > int64(len(rest)) {
		return nil, src, false
	}
	return rest[:n], rest[n:], true
}
