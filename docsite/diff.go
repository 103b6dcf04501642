package docsite

import (
	"fmt"
	"sort"
	"strings"
)

// Change is one field that differs between two versions.
type Change struct {
	// Kind is "added", "removed" or "changed".
	Kind     string
	Path     string
	Old, New *Field
	// Details say what changed, one line each ("type: string → integer").
	Details []string
}

// diffFields compares the field tables of two versions by path: in the
// new version's order, removed fields after the field that preceded them.
func diffFields(old, new []Field) []Change {
	oldBy := map[string]*Field{}
	for i := range old {
		if _, dup := oldBy[old[i].Path]; !dup {
			oldBy[old[i].Path] = &old[i]
		}
	}
	newBy := map[string]*Field{}
	for i := range new {
		if _, dup := newBy[new[i].Path]; !dup {
			newBy[new[i].Path] = &new[i]
		}
	}
	var out []Change
	seen := map[string]bool{}
	for i := range new {
		n := &new[i]
		if seen[n.Path] {
			continue
		}
		seen[n.Path] = true
		o := oldBy[n.Path]
		if o == nil {
			out = append(out, Change{Kind: "added", Path: n.Path, New: n})
			continue
		}
		if d := fieldDetails(o, n); len(d) > 0 {
			out = append(out, Change{Kind: "changed", Path: n.Path, Old: o, New: n, Details: d})
		}
	}
	// Removed fields, placed after the last surviving field before them.
	var removed []Change
	pos := map[string]int{}
	for i := range out {
		pos[out[i].Path] = i
	}
	for i := range old {
		o := &old[i]
		if newBy[o.Path] != nil || seen["-"+o.Path] {
			continue
		}
		seen["-"+o.Path] = true
		removed = append(removed, Change{Kind: "removed", Path: o.Path, Old: o})
	}
	if len(removed) == 0 {
		return out
	}
	// Order: the new version's rows interleaved with removed rows by the
	// position of the old row's nearest preceding survivor.
	type keyed struct {
		c     Change
		major int
		minor int
	}
	var all []keyed
	newIndex := map[string]int{}
	for i := range new {
		if _, ok := newIndex[new[i].Path]; !ok {
			newIndex[new[i].Path] = i
		}
	}
	for i, c := range out {
		all = append(all, keyed{c, newIndex[c.Path], i})
	}
	for i, r := range removed {
		major := -1
		for j := range old {
			if old[j].Path == r.Path {
				break
			}
			if k, ok := newIndex[old[j].Path]; ok {
				major = k
			}
		}
		all = append(all, keyed{r, major, len(out) + i})
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].major != all[j].major {
			return all[i].major < all[j].major
		}
		return all[i].minor < all[j].minor
	})
	res := make([]Change, len(all))
	for i := range all {
		res[i] = all[i].c
	}
	return res
}

func fieldDetails(o, n *Field) []string {
	var d []string
	if o.Type != n.Type {
		d = append(d, fmt.Sprintf("type: %s → %s", o.Type, n.Type))
	}
	if o.Required != n.Required {
		d = append(d, fmt.Sprintf("required: %s → %s", yesNo(o.Required), yesNo(n.Required)))
	}
	switch {
	case o.Enum == nil && n.Enum != nil:
		d = append(d, "now restricted to: "+strings.Join(n.Enum, ", "))
	case o.Enum != nil && n.Enum == nil:
		d = append(d, "no longer restricted to: "+strings.Join(o.Enum, ", "))
	case o.Enum != nil:
		if add := minus(n.Enum, o.Enum); len(add) > 0 {
			d = append(d, "values added: "+strings.Join(add, ", "))
		}
		if rem := minus(o.Enum, n.Enum); len(rem) > 0 {
			d = append(d, "values removed: "+strings.Join(rem, ", "))
		}
	}
	for _, c := range minus(o.Constraints, n.Constraints) {
		d = append(d, "− "+c)
	}
	for _, c := range minus(n.Constraints, o.Constraints) {
		d = append(d, "+ "+c)
	}
	if o.RefName != n.RefName {
		d = append(d, fmt.Sprintf("definition: %s → %s", orNone(o.RefName), orNone(n.RefName)))
	}
	if o.Title != n.Title {
		d = append(d, fmt.Sprintf("title: %s → %s", orNone(o.Title), orNone(n.Title)))
	}
	if o.Description != n.Description {
		d = append(d, "description changed")
	}
	return d
}

func minus(a, b []string) []string {
	in := map[string]bool{}
	for _, x := range b {
		in[x] = true
	}
	var out []string
	for _, x := range a {
		if !in[x] {
			out = append(out, x)
		}
	}
	return out
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
