package avrocompat

import (
	"fmt"
	"slices"

	"github.com/evtool/evtool/format/avro"
)

// resolver applies the specification's schema resolution to one decoded
// writer datum, value by value, and records what the reader does: every
// place it would fail (a real decoder stops at the first; we go on so a
// counterexample can show the break it was made for) and every value whose
// logical meaning changes. The library's own resolution refuses
// incompatible pairs outright, so it cannot show what happens to a datum;
// the brute-force test checks this resolver against it on compatible
// pairs.
type resolver struct {
	errs    []resolveError
	changes []change
	// defaults caches reader field defaults across the datums of one
	// comparison (decoding one means compiling its field's schema).
	defaults map[*avro.Field]any
}

func newResolver(defaults map[*avro.Field]any) *resolver {
	return &resolver{defaults: defaults}
}

type resolveError struct {
	rule   string
	w, r   avro.Place
	reason string
}

type change struct {
	w, r avro.Place
	// render says what the value means to the writer and to the reader.
	// Only a counterexample's change is rendered: the safety net's
	// samples never are, and a large decimal is costly to write out.
	render func() (written, read string)
}

func (rs *resolver) fail(rule string, w, r avro.Place, format string, args ...any) any {
	rs.errs = append(rs.errs, resolveError{rule: rule, w: w, r: r, reason: fmt.Sprintf(format, args...)})
	return nil
}

// resolve returns the reader's value for writer value v of w.
func (rs *resolver) resolve(w, r *avro.Node, v any, context string) any {
	if w.Kind == "union" {
		wb, val, ok := branchOf(w, v)
		if !ok {
			return rs.fail("avro-invalid-datum", place(w), place(r), "value %v is no branch of the writer's union", v)
		}
		if r.Kind == "union" {
			j := matchBranch(wb, r)
			if j < 0 {
				return rs.fail("avro-union-branch-unmatched", place(wb), place(r), "the reader's union has no branch for writer type %s", wb.Describe())
			}
			return wrap(r.Branches[j], rs.plain(wb, r.Branches[j], val, context))
		}
		if !matches(wb, r) {
			return rs.fail("avro-union-branch-unmatched", place(wb), place(r), "writer branch %s cannot be read as %s%s", wb.Describe(), r.Describe(), lost(val, r.Kind))
		}
		return rs.plain(wb, r, val, context)
	}
	if r.Kind == "union" {
		j := matchBranch(w, r)
		if j < 0 {
			return rs.fail("avro-union-branch-unmatched", place(w), place(r), "the reader's union has no branch for writer type %s", w.Describe())
		}
		return wrap(r.Branches[j], rs.plain(w, r.Branches[j], v, context))
	}
	return rs.plain(w, r, v, context)
}

func branchOf(u *avro.Node, v any) (*avro.Node, any, bool) {
	if v == nil {
		for _, b := range u.Branches {
			if b.Kind == "null" {
				return b, nil, true
			}
		}
		return nil, nil, false
	}
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return nil, nil, false
	}
	for name, val := range m {
		for _, b := range u.Branches {
			if b.BranchName() == name {
				return b, val, true
			}
		}
	}
	return nil, nil, false
}

func wrap(b *avro.Node, v any) any {
	if b.Kind == "null" {
		return nil
	}
	return map[string]any{b.BranchName(): v}
}

func (rs *resolver) plain(w, r *avro.Node, v any, context string) any {
	if !matches(w, r) {
		rule := "avro-type-changed"
		switch {
		case w.Kind == r.Kind && w.Named():
			rule = "avro-name-mismatch"
		case context == "items":
			rule = "avro-array-items-changed"
		case context == "values":
			rule = "avro-map-values-changed"
		}
		return rs.fail(rule, place(w), place(r), "writer %s cannot be read as %s%s", w.Describe(), r.Describe(), lost(v, r.Kind))
	}
	switch w.Kind {
	case "record":
		in, _ := v.(map[string]any)
		out := make(map[string]any, len(r.Fields))
		for _, rf := range r.Fields {
			wf := writerField(w, rf)
			if wf == nil {
				if !rf.HasDefault {
					rs.fail("avro-field-added-without-default", place(w), fieldPlace(r, rf), "field %q is missing from the data and has no default", rf.Name)
					continue
				}
				d, cached := rs.defaults[rf]
				if !cached {
					var err error
					if d, err = avro.DefaultDatum(rf); err != nil {
						rs.fail("avro-default-wrong-type", place(w), fieldPlace(r, rf), "default of field %q does not decode: %v", rf.Name, err)
						continue
					}
					if rs.defaults != nil {
						rs.defaults[rf] = d
					}
				}
				out[rf.Name] = d
				continue
			}
			out[rf.Name] = rs.resolve(wf.Type, rf.Type, in[wf.Name], "")
		}
		for _, cl := range ambiguousClaims(w, r) {
			rs.fail("avro-field-alias-ambiguous", place(w), fieldPlace(r, cl.reader), "the library refuses the pair: writer fields %q and %q both map to reader field %q", cl.first, cl.second, cl.reader.Name)
		}
		return out
	case "enum":
		s, _ := v.(string)
		if slices.Contains(r.Symbols, s) {
			return s
		}
		if r.HasEnumDefault {
			return r.EnumDefault
		}
		i := slices.Index(w.Symbols, s)
		return rs.fail("avro-enum-symbol-removed", avro.Place{File: w.File, Pointer: fmt.Sprintf("%s/symbols/%d", w.Pointer, i)}, place(r),
			"symbol %s is not in the reader's enum %s, which has no default", s, r.Name)
	case "fixed":
		if w.Size != r.Size {
			return rs.fail("avro-fixed-size-changed", place(w), place(r), "fixed of %d bytes read as fixed of %d bytes", w.Size, r.Size)
		}
		if rs.outside(w, r, v) {
			return nil
		}
		rs.meaning(w, r, v, v)
		return v
	case "array":
		in, _ := v.([]any)
		out := make([]any, len(in))
		for i, item := range in {
			out[i] = rs.resolve(w.Items, r.Items, item, "items")
		}
		return out
	case "map":
		in, _ := v.(map[string]any)
		out := make(map[string]any, len(in))
		for k, val := range in {
			out[k] = rs.resolve(w.Values, r.Values, val, "values")
		}
		return out
	}
	out := promote(v, r.Kind)
	if rs.outside(w, r, out) {
		return nil
	}
	rs.meaning(w, r, v, out)
	return out
}

// outside fails a plain writer value the reader's logical type has no
// meaning for (domainGap) and reports whether it did.
func (rs *resolver) outside(w, r *avro.Node, read any) bool {
	if w.Logical != "" || r.Logical == "" {
		return false
	}
	why := domainGap(r, read)
	if why != "" {
		rs.fail("avro-logical-type-added-out-of-domain", place(w), place(r), "%s", why)
	}
	return why != ""
}

// promote converts a primitive value to the reader's type (the
// specification's promotions).
func promote(v any, to string) any {
	switch x := v.(type) {
	case int32:
		switch to {
		case "long":
			return int64(x)
		case "float":
			return float32(x)
		case "double":
			return float64(x)
		}
	case int64:
		switch to {
		case "float":
			return float32(x)
		case "double":
			return float64(x)
		}
	case float32:
		if to == "double" {
			return float64(x)
		}
	case string:
		if to == "bytes" {
			return []byte(x)
		}
	case []byte:
		if to == "string" {
			return string(x)
		}
	}
	return v
}

// meaning records a value whose logical meaning differs between writer and
// reader.
func (rs *resolver) meaning(w, r *avro.Node, written, read any) {
	if w.Logical == "" || r.Logical == "" {
		return
	}
	if w.Logical == r.Logical && (w.Logical != "decimal" || (w.Scale == r.Scale && r.Precision >= w.Precision)) {
		return // same meaning: skip rendering it
	}
	rs.changes = append(rs.changes, change{w: place(w), r: place(r), render: func() (string, string) {
		before, after := meaning(w, written), meaning(r, read)
		if w.Logical == "decimal" && r.Logical == "decimal" {
			if b, ok := read.([]byte); ok {
				if n, exact := digits(unscaled(b)); n > r.Precision {
					at := ""
					if !exact {
						at = "at least "
					}
					after += fmt.Sprintf(" (%s%d digits; the reader's precision is %d)", at, n, r.Precision)
				}
			}
		}
		return before, after
	}})
}
