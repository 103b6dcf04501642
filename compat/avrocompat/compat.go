// Package avrocompat is evtool's compatibility engine for Avro schemas.
// Verdicts follow the specification's schema resolution rules with the
// reader and writer taken per direction (BACKWARD: the new schema reads
// data written with the old one), report every break rather than the
// first, and go beyond Apache Avro Java and Confluent by treating changes
// of a logical type's meaning (decimal scale, timestamp units, local vs
// UTC instants, time units) as breaks. Every break carries a
// counterexample found by encoding a writer datum and resolving it with
// the reader.
package avrocompat

import (
	"fmt"
	"slices"
	"strings"

	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/format/avro"
	"github.com/evtool/evtool/report"
)

// DefaultSamples is how many random datums the safety net tries when
// Options.Samples is 0.
const DefaultSamples = 64

// Compare returns every reason old and new are incompatible in direction
// dir (an empty result means compatible). BACKWARD reads old data with the
// new schema; FORWARD reads new data with the old one.
func Compare(old, new *avro.Schema, dir engine.Direction, opts engine.Options) []Finding {
	writer, reader := old, new
	if dir == engine.Forward {
		writer, reader = new, old
	}
	c := &checker{dir: dir, seen: map[[2]*avro.Node]bool{}}
	c.check(writer.Root, reader.Root, nil, "")
	if opts.Samples >= 0 {
		defaults := map[*avro.Field]any{}
		b := &budget{left: maxWitnessBytes}
		findWitnesses(writer, reader, c.findings, defaults, opts, b)
		c.findings = append(c.findings, unexplained(writer, reader, dir, c.findings, defaults, opts, b)...)
		if done(opts) {
			c.add("avro-incomplete", report.SeverityWarning, place(writer.Root), place(reader.Root), nil,
				"the comparison was stopped before the witness search finished: "+opts.Context.Err().Error())
		}
	}
	out := make([]Finding, len(c.findings))
	for i, f := range c.findings {
		out[i] = *f
		if dir == engine.Forward {
			if id, ok := forwardRule[f.Rule]; ok {
				out[i].Rule = id
			}
		}
	}
	return out
}

// forwardRule renames the rules whose id describes the change as its
// author sees it: reading new data with the old schema, the reader field
// the writer lacks was removed in the new version, the writer symbol the
// reader lacks was added.
var forwardRule = map[string]string{
	"avro-field-added-without-default": "avro-field-removed-without-default",
	"avro-enum-symbol-removed":         "avro-enum-symbol-added",
	"avro-decimal-precision-narrowed":  "avro-decimal-precision-widened",
}

// Compatible reports whether no finding fails the gate.
func Compatible(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity == report.SeverityError {
			return false
		}
	}
	return true
}

type checker struct {
	dir      engine.Direction
	seen     map[[2]*avro.Node]bool
	findings []*Finding
}

func (c *checker) add(rule string, sev report.Severity, w, r avro.Place, path []avro.Step, msg string) *Finding {
	f := &Finding{Rule: rule, Severity: sev, Direction: c.dir, Writer: w, Reader: r, Message: msg, path: slices.Clone(path)}
	c.findings = append(c.findings, f)
	return f
}

func place(n *avro.Node) avro.Place { return avro.Place{File: n.File, Pointer: n.Pointer} }

func fieldPlace(rec *avro.Node, f *avro.Field) avro.Place {
	return avro.Place{File: rec.File, Pointer: f.Pointer}
}

func with(path []avro.Step, s avro.Step) []avro.Step {
	return append(slices.Clip(path), s)
}

// check compares the writer schema w with the reader schema r at path (the
// steps from the writer's root). Each pair is compared once, which is
// what makes recursive types terminate.
func (c *checker) check(w, r *avro.Node, path []avro.Step, context string) {
	key := [2]*avro.Node{w, r}
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	switch {
	case w.Kind == "union":
		for i, wb := range w.Branches {
			bp := with(path, avro.BranchStep(i))
			if r.Kind == "union" {
				j := matchBranch(wb, r)
				if j < 0 {
					c.add("avro-union-branch-unmatched", report.SeverityError, place(wb), place(r), bp,
						fmt.Sprintf("writer union branch %s matches no branch of the reader's union", wb.Describe()))
					continue
				}
				c.check(wb, r.Branches[j], bp, context)
				continue
			}
			if !matches(wb, r) {
				f := c.add("avro-union-branch-unmatched", report.SeverityError, place(wb), place(r), bp,
					fmt.Sprintf("writer union branch %s cannot be read as the reader's %s", wb.Describe(), r.Describe()))
				f.leaf = boundary(wb, r)
				continue
			}
			c.check(wb, r, bp, context)
		}
		return
	case r.Kind == "union":
		j := matchBranch(w, r)
		if j < 0 {
			c.add("avro-union-branch-unmatched", report.SeverityError, place(w), place(r), path,
				fmt.Sprintf("writer type %s matches no branch of the reader's union", w.Describe()))
			return
		}
		c.check(w, r.Branches[j], path, context)
		return
	}
	if !matches(w, r) {
		rule, what := "avro-type-changed", "type"
		switch context {
		case "items":
			rule, what = "avro-array-items-changed", "array item type"
		case "values":
			rule, what = "avro-map-values-changed", "map value type"
		}
		if w.Kind == r.Kind && w.Named() {
			rule = "avro-name-mismatch"
			c.add(rule, report.SeverityError, place(w), place(r), path,
				fmt.Sprintf("writer %s is read as %s: names differ and no reader alias names the writer", w.Describe(), r.Describe()))
			return
		}
		f := c.add(rule, report.SeverityError, place(w), place(r), path,
			fmt.Sprintf("%s changed from %s to %s, which is not a promotion", what, w.Describe(), r.Describe()))
		f.leaf = boundary(w, r)
		return
	}
	switch w.Kind {
	case "record":
		c.record(w, r, path)
	case "enum":
		c.enum(w, r, path)
	case "fixed":
		if w.Size != r.Size {
			c.add("avro-fixed-size-changed", report.SeverityError, place(w), place(r), path,
				fmt.Sprintf("fixed %s changed size from %d to %d bytes", w.Name, w.Size, r.Size))
			return
		}
	case "array":
		c.check(w.Items, r.Items, with(path, avro.ItemStep()), "items")
		return
	case "map":
		c.check(w.Values, r.Values, with(path, avro.ValueStep()), "values")
		return
	}
	c.logical(w, r, path)
}

func (c *checker) record(w, r *avro.Node, path []avro.Step) {
	for _, rf := range r.Fields {
		wf := writerField(w, rf)
		if wf == nil {
			if !rf.HasDefault {
				c.add("avro-field-added-without-default", report.SeverityError, place(w), fieldPlace(r, rf), path,
					fmt.Sprintf("reader field %q is not in the writer's record %s and has no default", rf.Name, w.Name))
			}
			continue
		}
		c.check(wf.Type, rf.Type, with(path, avro.FieldStep(wf.Name)), "")
	}
	for _, cl := range ambiguousClaims(w, r) {
		c.add("avro-field-alias-ambiguous", report.SeverityError, place(w), fieldPlace(r, cl.reader), path, cl.reason())
	}
}

// claim is two writer fields that resolve to one reader field: one by the
// reader field's name and one by its alias, or both by aliases.
type claim struct {
	first, second string
	reader        *avro.Field
}

func (cl claim) reason() string {
	return fmt.Sprintf("writer fields %q and %q both resolve to reader field %q through its name and aliases; the library refuses to read such data (and Java fails on the duplicate)",
		cl.first, cl.second, cl.reader.Name)
}

// ambiguousClaims lists the reader fields of r that more than one writer
// field of w resolves to. The specification does not say which one wins;
// the library rejects the pair before reading a byte, so it is a break.
func ambiguousClaims(w, r *avro.Node) []claim {
	var out []claim
	claimed := map[*avro.Field]string{}
	for _, wf := range w.Fields {
		rf := r.Field(wf.Name)
		if rf == nil {
			for _, f := range r.Fields {
				if slices.Contains(f.Aliases, wf.Name) {
					rf = f
					break
				}
			}
		}
		if rf == nil {
			continue
		}
		if first, dup := claimed[rf]; dup {
			out = append(out, claim{first: first, second: wf.Name, reader: rf})
			continue
		}
		claimed[rf] = wf.Name
	}
	return out
}

// writerField finds the writer's field for reader field rf: by name, then
// by the reader field's aliases.
func writerField(w *avro.Node, rf *avro.Field) *avro.Field {
	if f := w.Field(rf.Name); f != nil {
		return f
	}
	for _, a := range rf.Aliases {
		if f := w.Field(a); f != nil {
			return f
		}
	}
	return nil
}

func (c *checker) enum(w, r *avro.Node, path []avro.Step) {
	// A set, not a scan: enums of many thousand symbols are quadratic.
	readerSymbols := make(map[string]bool, len(r.Symbols))
	for _, s := range r.Symbols {
		readerSymbols[s] = true
	}
	for i, s := range w.Symbols {
		if readerSymbols[s] {
			continue
		}
		symbol := avro.Place{File: w.File, Pointer: fmt.Sprintf("%s/symbols/%d", w.Pointer, i)}
		if r.HasEnumDefault {
			c.add("avro-enum-symbol-defaulted", report.SeverityInfo, symbol, place(r), path,
				fmt.Sprintf("writer enum symbol %s is read as the reader's default %s", s, r.EnumDefault))
			continue
		}
		{
			f := c.add("avro-enum-symbol-removed", report.SeverityError, symbol, place(r), path,
				fmt.Sprintf("writer enum symbol %s is not in the reader's enum %s, which has no default", s, r.Name))
			f.leaf = s
		}
	}
}

// unqualified is a full name's last part.
func unqualified(full string) string { return full[strings.LastIndexByte(full, '.')+1:] }

// sameName is the specification's name match for named types: the same
// unqualified name (as Java compares), or a reader alias naming the
// writer's full name.
func sameName(w, r *avro.Node) bool {
	return unqualified(w.Name) == unqualified(r.Name) || slices.Contains(r.Aliases, w.Name)
}

var promotions = map[string][]string{
	"int":    {"long", "float", "double"},
	"long":   {"float", "double"},
	"float":  {"double"},
	"string": {"bytes"},
	"bytes":  {"string"},
}

// matches is the specification's "schemas match" for non-unions.
func matches(w, r *avro.Node) bool {
	if w.Kind == r.Kind {
		return !w.Named() || sameName(w, r)
	}
	return slices.Contains(promotions[w.Kind], r.Kind)
}

// matchBranch picks the reader union branch that resolves writer type w,
// in the library's (and Java's) order: a branch of the same type and, for
// a named type, the same full name or an alias naming it; else a named
// branch of the same unqualified name; else the first branch w promotes
// to. A fixed matches only a fixed of its size (the specification's match),
// so a later branch of the right size wins; when no branch matches, a
// same-named fixed of another size is picked so the finding says the size
// changed.
func matchBranch(w *avro.Node, r *avro.Node) int {
	sized := func(b *avro.Node) bool { return w.Kind != "fixed" || b.Size == w.Size }
	for j, b := range r.Branches {
		if b.Kind == w.Kind && sized(b) && (!w.Named() || b.Name == w.Name || slices.Contains(b.Aliases, w.Name)) {
			return j
		}
	}
	if w.Named() {
		for j, b := range r.Branches {
			if b.Kind == w.Kind && sized(b) && unqualified(b.Name) == unqualified(w.Name) {
				return j
			}
		}
	}
	for j, b := range r.Branches {
		if b.Kind != w.Kind && matches(w, b) {
			return j
		}
	}
	for j, b := range r.Branches {
		if b.Kind == w.Kind && w.Kind == "fixed" && sameName(w, b) {
			return j
		}
	}
	return -1
}
