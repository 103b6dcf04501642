package avro

import (
	"fmt"
	"strconv"
)

// Decoding cost. The library bounds the items of one array of zero-byte
// items (4096 nulls cost three bytes), but not their product: an
// array<array<null>> of n inner blocks of 4096 nulls is 3n bytes and
// 4096n values, and a 4 KB event took seconds and a 80 KB one gigabytes.
// So before the library decodes a datum, a walk over its bytes (no
// values made) counts the values it holds, every item, field, key and
// null included, and refuses a datum of more than
// MaxDecodedValues(len(data)).

// Decoded values allowed per datum: a fixed allowance (a record of many
// fields, one array of the library's 4096 zero-byte items) plus a multiple
// of the datum's bytes.
const (
	decodeBaseValues    = 1 << 13
	decodeValuesPerByte = 64
)

// MaxDecodedValues is how many values a binary datum of size bytes may
// decode to: 8192 plus 64 per byte. Every value but a null, an empty
// record or a fixed of size 0 takes at least one byte, so real data stays
// far below; only zero-byte items multiplied by nesting reach it.
func MaxDecodedValues(size int) int64 {
	return decodeBaseValues + decodeValuesPerByte*int64(size)
}

// checkDecodeCost walks data as a datum of root (datumWalker) and returns
// an error naming the pointer (in the datum's JSON encoding) where the
// walk passed MaxDecodedValues. Malformed data ends the walk without an
// error: the library reports it with its own message, and it cannot
// decode past the point where the walk stopped.
func checkDecodeCost(root *Node, data []byte) error {
	w := datumWalker{src: data, limit: MaxDecodedValues(len(data))}
	if w.walk(root) != nil || !w.over() {
		return nil
	}
	return fmt.Errorf("%s: the datum decodes to more than %d values, evtool's limit for %d bytes (%d plus %d per byte; nulls and other zero-byte items count)",
		costPointer(w.stack), w.limit, len(data), decodeBaseValues, decodeValuesPerByte)
}

// costPointer is the JSON pointer of the value being walked: one token
// per frame (a tagged union's branch name; none for null).
func costPointer(stack []walkFrame) string {
	var tokens []string
	for _, f := range stack {
		switch f.n.Kind {
		case "record":
			tokens = append(tokens, f.n.Fields[f.i-1].Name)
		case "array":
			tokens = append(tokens, strconv.Itoa(f.i-1))
		case "map":
			tokens = append(tokens, string(f.key))
		case "union":
			if f.branch.Kind != "null" {
				tokens = append(tokens, f.branch.BranchName())
			}
		}
	}
	if len(tokens) == 0 {
		return "/"
	}
	return ptrJoin("", tokens...)
}

// MaxDatumSize is the largest minimal datum evtool accepts for any type:
// 1 MiB, a default Kafka record, like MaxFixedSize. A record of four
// fields of one 1 MiB fixed is 4 MiB in every datum: its samples and
// counterexamples took seconds and gigabytes, and no such event fits a
// default topic.
const MaxDatumSize = MaxFixedSize

// unbounded is the minimal size of a type without a finite datum.
const unbounded = int64(1) << 61

// minSizes is, for every node under root, the fewest bytes a datum of it
// takes in the binary encoding (unbounded when it has none). It is a
// fixpoint over the nodes in post-order, as recursive types end only
// through a union branch or an empty collection.
func minSizes(root *Node) map[*Node]int64 {
	var order []*Node
	traverse(root, nil, func(n *Node) { order = append(order, n) })
	size := make(map[*Node]int64, len(order))
	for _, n := range order {
		size[n] = unbounded
	}
	for changed := true; changed; {
		changed = false
		for _, n := range order {
			var m int64
			switch n.Kind {
			case "null":
			case "float":
				m = 4
			case "double":
				m = 8
			case "fixed":
				m = int64(n.Size)
			case "record":
				for _, f := range n.Fields {
					// Both are at most unbounded (2^61): the sum fits.
					m = min(m+size[f.Type], unbounded)
				}
			case "union":
				m = unbounded
				for _, b := range n.Branches {
					m = min(m, size[b]+1)
				}
			default: // one byte at least: a varint, a length, a block count
				m = 1
			}
			if m < size[n] {
				size[n], changed = m, true
			}
		}
	}
	return size
}

// checkDatumSizes reports every type whose datums all take more than
// MaxDatumSize bytes, at the innermost such type (a record is named when
// none of its fields is over the limit alone).
func checkDatumSizes(l *loader, root *Node, size map[*Node]int64) Errors {
	var errs Errors
	walk(root, func(n *Node) {
		if size[n] == unbounded && n.Kind == "record" {
			// No datum at all: a field holds the record again with no
			// union branch, array or map to end it, or is an empty union.
			// No event can be written, so nothing about it can be checked
			// (as a writer it made errors no datum could show).
			field := "a field"
			for _, f := range n.Fields {
				if size[f.Type] == unbounded {
					// The first field with no finite value: where the
					// cycle, or the empty union, starts.
					field = fmt.Sprintf("field %q (%s)", f.Name, f.Pointer)
					break
				}
			}
			errs = append(errs, l.errorAt(n.File, n.Pointer, fmt.Sprintf("%s has no finite datum: %s has no finite value (its type contains a record again with no union branch, array or map to end it, or is an empty union)", n.Describe(), field)))
			return
		}
		if size[n] <= MaxDatumSize || size[n] == unbounded {
			return
		}
		for _, c := range children(n) {
			if size[c] > MaxDatumSize && size[c] != unbounded {
				return
			}
		}
		errs = append(errs, l.errorAt(n.File, n.Pointer, fmt.Sprintf("every datum of %s takes at least %d bytes, over evtool's limit of %d bytes (a default Kafka record)", n.Describe(), size[n], MaxDatumSize)))
	})
	return errs
}
