package protocompat

import (
	"strings"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/compat/engine"
	pb "github.com/evtool/evtool/format/protobuf"
	"github.com/evtool/evtool/report"
)

// Engine is the Protobuf engine as the gate (package compat) calls it.
func Engine() engine.Engine {
	return engine.Engine{
		Compiled: func(v *catalog.Version) bool { return v.Compiled != nil },
		New:      func() engine.Compare { return CompareVersions },
		Rules:    Rules,
		Section:  RulesSection,
	}
}

// CompareVersions compares two Protobuf versions in one direction under
// the pair's profile (wire or wire-json; default wire-json) and gives the
// findings display paths and fingerprints.
func CompareVersions(vp engine.VersionPair, dir engine.Direction, opts engine.Options) []report.Finding {
	o, ok1 := vp.Old.Compiled.(*pb.Schema)
	n, ok2 := vp.New.Compiled.(*pb.Schema)
	if !ok1 || !ok2 {
		return nil
	}
	opts.Profile, _ = ParseProfile(opts.Profile)
	out := Compare(o, n, dir, opts)
	for i := range out {
		f := &out[i]
		// Fingerprints of the message/field path, not of file:line:col:
		// reformatting a file must not unapprove a break.
		f.Fingerprint = engine.Fingerprint(vp.Type, f.Rule, fullName(f.OldPointer), fullName(f.NewPointer), dir)
		switch {
		case f.File == "":
		case f.File == o.File && f.File != n.File:
			f.File = engine.DisplayPath(vp.OldCatalog, vp.Old, f.File, true)
		default:
			f.File = engine.DisplayPath(vp.NewCatalog, vp.New, f.File, true)
		}
	}
	return engine.Stamp(vp, dir, out)
}

// fullName is the descriptor name of a Protobuf finding's side
// ("file:line:col#pkg.Msg.field").
func fullName(side string) string {
	if i := strings.LastIndexByte(side, '#'); i >= 0 {
		return side[i+1:]
	}
	return side
}
