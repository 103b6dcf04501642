package avro

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Map order. Datums hold maps (and records) as map[string]any, and the
// library writes a map's entries in Go's map iteration order, which
// changes from run to run: the same seed made other bytes, and a replay,
// its shrinking and its reproduce line did not send the same events. The
// specification lets a writer order a map's entries as it likes, so
// Encode and EncodeJSON rewrite what the library wrote with every map's
// entries in ascending order of their keys' bytes (in one block): the
// same datum always has the same bytes. Only schemas that reach a map
// pay for the rewrite.

// reachingMap holds the nodes a map is reachable from (the map included).
func reachingMap(root *Node) map[*Node]bool {
	return reaching(root, func(n *Node) bool { return n.Kind == "map" })
}

// orderedBinary is data, a binary datum of n the library wrote, with the
// entries of every map sorted by key.
func orderedBinary(n *Node, maps map[*Node]bool, data []byte) ([]byte, error) {
	// Room for the frames of the values skipped whole, nested as real
	// data is, so that skipping them allocates nothing.
	w := datumWalker{stack: make([]walkFrame, 0, 8)}
	out, rest, err := orderBinary(&w, n, maps, data, make([]byte, 0, len(data)))
	if err != nil {
		return nil, fmt.Errorf("ordering the map entries of a datum: %w", err)
	}
	if len(rest) > 0 {
		return nil, fmt.Errorf("ordering the map entries of a datum: %d bytes left after it", len(rest))
	}
	return out, nil
}

// orderBinary appends the value of n at the start of src to dst, its maps'
// entries sorted, and returns what follows the value in src. w skips the
// values that hold no map.
func orderBinary(w *datumWalker, n *Node, maps map[*Node]bool, src, dst []byte) (out, rest []byte, err error) {
	if !maps[n] {
		rest, err := w.skip(n, src)
		if err != nil {
			return nil, nil, err
		}
		return append(dst, src[:len(src)-len(rest)]...), rest, nil
	}
	switch n.Kind {
	case "record":
		for _, f := range n.Fields {
			if dst, src, err = orderBinary(w, f.Type, maps, src, dst); err != nil {
				return nil, nil, err
			}
		}
		return dst, src, nil
	case "union":
		b, rest, ok := unionBranch(n, src)
		if !ok {
			return nil, nil, errMalformed
		}
		dst = append(dst, src[:len(src)-len(rest)]...)
		return orderBinary(w, b, maps, rest, dst)
	case "array", "map":
		// Every item or entry is written to buf (an entry's key with its
		// length prefix, then its value), ordered; ends[i] is where item i
		// ends and keys[i] an entry's key. The blocks become one, a map's
		// entries sorted by key, an array's items kept in their order.
		var buf []byte
		var ends []int
		var keys [][]byte
		child := n.Items
		if n.Kind == "map" {
			child = n.Values
		}
		for {
			k, r, err := blockCount(src)
			if err != nil {
				return nil, nil, err
			}
			src = r
			if k == 0 {
				break
			}
			for ; k > 0; k-- {
				if n.Kind == "map" {
					key, r, ok := readBytes(src)
					if !ok {
						return nil, nil, errMalformed
					}
					buf = append(buf, src[:len(src)-len(r)]...)
					keys, src = append(keys, key), r
				}
				if buf, src, err = orderBinary(w, child, maps, src, buf); err != nil {
					return nil, nil, err
				}
				ends = append(ends, len(buf))
			}
		}
		if len(ends) == 0 {
			return append(dst, 0), src, nil
		}
		order := make([]int, len(ends))
		for i := range order {
			order[i] = i
		}
		if n.Kind == "map" {
			// Keys of one map differ (a Go map held them); stable all the
			// same, so that even bytes with a repeated key do not depend
			// on the sort.
			slices.SortStableFunc(order, func(a, b int) int { return bytes.Compare(keys[a], keys[b]) })
		}
		dst = appendLong(dst, int64(len(ends)))
		for _, i := range order {
			start := 0
			if i > 0 {
				start = ends[i-1]
			}
			dst = append(dst, buf[start:ends[i]]...)
		}
		return append(dst, 0), src, nil
	}
	// A node that reaches a map is a record, union, array or map.
	return nil, nil, fmt.Errorf("unexpected %s", n.Kind)
}

// appendLong appends v as a zig-zag varint.
func appendLong(dst []byte, v int64) []byte {
	return binary.AppendUvarint(dst, uint64(v<<1)^uint64(v>>63))
}

// orderedJSON is data, a datum of n in the JSON encoding (tagged unions)
// the library wrote, with the members of every map's object sorted by key.
// Records keep their fields' order and every other value its bytes.
func orderedJSON(n *Node, maps map[*Node]bool, data []byte) ([]byte, error) {
	out, err := orderJSON(n, maps, data, make([]byte, 0, len(data)))
	if err != nil {
		return nil, fmt.Errorf("ordering the map entries of a datum: %w", err)
	}
	return out, nil
}

// member is one member of a JSON object: its key as written and decoded,
// and its value.
type member struct {
	raw   []byte
	key   string
	value []byte
}

func orderJSON(n *Node, maps map[*Node]bool, raw []byte, dst []byte) ([]byte, error) {
	raw = bytes.TrimSpace(raw)
	if !maps[n] || bytes.Equal(raw, []byte("null")) {
		return append(dst, raw...), nil
	}
	switch n.Kind {
	case "record", "map":
		members, err := objectMembers(raw)
		if err != nil {
			return nil, err
		}
		// Each value is ordered first, into its own bytes.
		for i, m := range members {
			vn := n.Values
			if n.Kind == "record" {
				if vn = fieldType(n, m.key); vn == nil {
					return nil, fmt.Errorf("no field %q in record %s", m.key, n.Name)
				}
			}
			if members[i].value, err = orderJSON(vn, maps, m.value, nil); err != nil {
				return nil, err
			}
		}
		if n.Kind == "map" {
			// Keys the library wrote alike (every invalid UTF-8 byte
			// becomes U+FFFD) are ordered by their values.
			slices.SortFunc(members, func(a, b member) int {
				return cmp.Or(strings.Compare(a.key, b.key), bytes.Compare(a.value, b.value))
			})
		}
		dst = append(dst, '{')
		for i, m := range members {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(append(append(dst, m.raw...), ':'), m.value...)
		}
		return append(dst, '}'), nil
	case "union":
		members, err := objectMembers(raw)
		if err != nil {
			return nil, err
		}
		if len(members) != 1 {
			return nil, fmt.Errorf("a union value with %d members", len(members))
		}
		m := members[0]
		var branch *Node
		for _, b := range n.Branches {
			if b.BranchName() == m.key {
				branch = b
			}
		}
		if branch == nil {
			return nil, fmt.Errorf("no branch %q in the union", m.key)
		}
		dst = append(append(append(dst, '{'), m.raw...), ':')
		if dst, err = orderJSON(branch, maps, m.value, dst); err != nil {
			return nil, err
		}
		return append(dst, '}'), nil
	case "array":
		items, err := splitJSON(raw, '[', ']', false)
		if err != nil {
			return nil, err
		}
		dst = append(dst, '[')
		for i, item := range items {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = orderJSON(n.Items, maps, item.value, dst); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	}
	return nil, fmt.Errorf("unexpected %s", n.Kind)
}

func fieldType(n *Node, name string) *Node {
	for _, f := range n.Fields {
		if f.Name == name {
			return f.Type
		}
	}
	return nil
}

// objectMembers splits a JSON object into its members, in order, keeping
// each key's bytes as written.
func objectMembers(raw []byte) ([]member, error) {
	return splitJSON(raw, '{', '}', true)
}

// splitJSON splits a JSON object (open '{', members) or array ('[') into
// its members or items. It reads what the library wrote, so it checks
// only as much as it must not to go astray; the library's decoder reads
// the result.
func splitJSON(raw []byte, open, close byte, members bool) ([]member, error) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != open {
		return nil, errNotJSON
	}
	i = skipSpace(raw, i+1)
	var out []member
	if i < len(raw) && raw[i] == close {
		return out, nil
	}
	for {
		var m member
		if members {
			end, err := jsonStringEnd(raw, i)
			if err != nil {
				return nil, err
			}
			m.raw = raw[i:end]
			if m.key, err = jsonKey(m.raw); err != nil {
				return nil, err
			}
			i = skipSpace(raw, end)
			if i >= len(raw) || raw[i] != ':' {
				return nil, errNotJSON
			}
			i = skipSpace(raw, i+1)
		}
		end, err := jsonValueEnd(raw, i)
		if err != nil {
			return nil, err
		}
		m.value = raw[i:end]
		out = append(out, m)
		i = skipSpace(raw, end)
		switch {
		case i < len(raw) && raw[i] == ',':
			i = skipSpace(raw, i+1)
		case i < len(raw) && raw[i] == close:
			if skipSpace(raw, i+1) != len(raw) {
				return nil, errNotJSON
			}
			return out, nil
		default:
			return nil, errNotJSON
		}
	}
}

var errNotJSON = errors.New("not the JSON the library writes")

func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

// jsonStringEnd is the offset after the JSON string starting at i.
func jsonStringEnd(raw []byte, i int) (int, error) {
	if i >= len(raw) || raw[i] != '"' {
		return 0, errNotJSON
	}
	for i++; i < len(raw); i++ {
		switch raw[i] {
		case '\\':
			i++ // the escaped byte; \uXXXX's digits are plain bytes
		case '"':
			return i + 1, nil
		}
	}
	return 0, errNotJSON
}

// jsonValueEnd is the offset after the JSON value starting at i.
func jsonValueEnd(raw []byte, i int) (int, error) {
	if i >= len(raw) {
		return 0, errNotJSON
	}
	switch raw[i] {
	case '"':
		return jsonStringEnd(raw, i)
	case '{', '[':
		depth := 0
		for i < len(raw) {
			switch raw[i] {
			case '"':
				end, err := jsonStringEnd(raw, i)
				if err != nil {
					return 0, err
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1, nil
				}
			}
			i++
		}
		return 0, errNotJSON
	}
	// A number, true, false or null: up to the next delimiter.
	start := i
	for i < len(raw) && strings.IndexByte(",}] \t\n\r", raw[i]) < 0 {
		i++
	}
	if i == start {
		return 0, errNotJSON
	}
	return i, nil
}

// jsonKey decodes a JSON string; one without escapes is its own bytes.
func jsonKey(raw []byte) (string, error) {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), nil
	}
	var key string
	err := json.Unmarshal(raw, &key)
	return key, err
}
