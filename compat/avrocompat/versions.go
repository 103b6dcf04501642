package avrocompat

import (
	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/format/avro"
	"github.com/evtool/evtool/report"
)

// Engine is the Avro engine as the gate (package compat) calls it.
func Engine() engine.Engine {
	return engine.Engine{
		Compiled: func(v *catalog.Version) bool { return v.Compiled != nil },
		New:      func() engine.Compare { return CompareVersions },
		Rules:    Rules,
		Section:  RulesSection,
	}
}

// CompareVersions compares two Avro versions in one direction and gives
// the findings display paths.
func CompareVersions(vp engine.VersionPair, dir engine.Direction, opts engine.Options) []report.Finding {
	o, ok1 := vp.Old.Compiled.(*avro.Schema)
	n, ok2 := vp.New.Compiled.(*avro.Schema)
	if !ok1 || !ok2 {
		return nil
	}
	// Pointers into a version's own file print bare, so the pair names
	// the files as the schemas do; display paths are put back below.
	p := vp.Pair
	p.OldFile, p.NewFile = o.File, n.File
	var out []report.Finding
	for _, f := range Compare(o, n, dir, opts) {
		rf := f.ToReport(p, o, n)
		switch rf.File {
		case n.File:
			rf.File = vp.New.File
		case o.File:
			rf.File = vp.Old.File
		default:
			rf.File = engine.DisplayPath(vp.NewCatalog, vp.New, rf.File, false)
		}
		out = append(out, rf)
	}
	return engine.Stamp(vp, dir, out)
}
