package avro

import (
	"encoding/json"
	"strings"
)

// emit renders n as one self-contained schema document: every named type
// defined at its first occurrence with its full name, later ones by name.
// physical drops logical types (the wire form every datum is sampled and
// resolved in); defaults keeps field defaults.
func emit(n *Node, physical, defaults bool) []byte {
	e := emitter{seen: map[*Node]bool{}, physical: physical, defaults: defaults}
	b, err := json.Marshal(e.node(n))
	if err != nil {
		// Only json.RawMessage defaults could fail, and they were
		// produced by json.Marshal.
		panic(err)
	}
	return b
}

type emitter struct {
	seen               map[*Node]bool
	physical, defaults bool
}

func (e *emitter) node(n *Node) any {
	switch n.Kind {
	case "union":
		out := make([]any, len(n.Branches))
		for i, b := range n.Branches {
			out[i] = e.node(b)
		}
		return out
	case "array":
		return e.logical(n, map[string]any{"type": "array", "items": e.node(n.Items)})
	case "map":
		return e.logical(n, map[string]any{"type": "map", "values": e.node(n.Values)})
	case "record", "enum", "fixed":
		if e.seen[n] {
			return n.Name
		}
		e.seen[n] = true
		m := map[string]any{"type": n.Kind, "name": n.Name}
		if !strings.Contains(n.Name, ".") {
			m["namespace"] = ""
		}
		if len(n.Aliases) > 0 {
			m["aliases"] = n.Aliases
		}
		switch n.Kind {
		case "record":
			fields := make([]any, len(n.Fields))
			for i, f := range n.Fields {
				fm := map[string]any{"name": f.Name, "type": e.node(f.Type)}
				if len(f.Aliases) > 0 {
					fm["aliases"] = f.Aliases
				}
				if e.defaults && f.HasDefault {
					fm["default"] = f.Default
				}
				fields[i] = fm
			}
			m["fields"] = fields
		case "enum":
			m["symbols"] = n.Symbols
			if n.HasEnumDefault {
				m["default"] = n.EnumDefault
			}
		case "fixed":
			m["size"] = n.Size
		}
		return e.logical(n, m)
	default:
		if n.Logical == "" || e.physical {
			return n.Kind
		}
		return e.logical(n, map[string]any{"type": n.Kind})
	}
}

func (e *emitter) logical(n *Node, m map[string]any) any {
	if n.Logical == "" || e.physical {
		return m
	}
	m["logicalType"] = n.Logical
	if n.Logical == "decimal" {
		m["precision"] = n.Precision
		m["scale"] = n.Scale
	}
	return m
}
