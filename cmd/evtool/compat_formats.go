package main

import (
	"github.com/spf13/cobra"

	"github.com/evtool/evtool/compat"
	"github.com/evtool/evtool/compat/formats"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/protobuf"
	"github.com/evtool/evtool/registry"
	"github.com/evtool/evtool/report"
)

// diffKind is the format of compat diff's files when either is Avro or
// Protobuf (both must then be of it; usage error otherwise, reported by
// compatDiffFormat).
func diffKind(args []string) (format.Kind, bool) {
	for _, a := range args {
		if k, ok := format.KindOf(a); ok && k != format.JSONSchema {
			return k, true
		}
	}
	return "", false
}

type diffOptions struct {
	mode       registry.Mode
	profile    registry.Profile
	profileSet bool
	message    string
	samples    int
	samplesSet bool
	seed       int64
	format     report.Format
}

func (a *app) compatDiffFormat(cmd *cobra.Command, args []string, kind format.Kind, o diffOptions) error {
	for _, arg := range args {
		if k, _ := format.KindOf(arg); k != kind {
			return usagef("compat diff compares two files of one format: %s is %s but %s is not", args[0], kind.Name(), arg)
		}
	}
	profile := o.profile
	switch {
	case kind == format.Avro && o.profileSet:
		return usagef("--profile %s: Avro compatibility is the specification's schema resolution and takes no profile", o.profile)
	case kind == format.Avro:
		profile = ""
	case !o.profileSet:
		profile = registry.DefaultProfileOf(format.Protobuf)
	case !profile.Protobuf():
		return usagef("--profile %s: Protobuf profiles are wire and wire-json", o.profile)
	}
	if kind != format.Protobuf && o.message != "" {
		return usagef("--message selects a Protobuf message; %s files have none", kind.Name())
	}
	old, err := formats.LoadFile(args[0], o.message)
	if err != nil {
		return err
	}
	message := o.message
	if message == "" && kind == format.Protobuf {
		// NEW's event message is OLD's by name, not NEW's first message.
		message = string(old.Compiled.(*protobuf.Schema).Message.FullName())
	}
	nw, err := formats.LoadFile(args[1], message)
	if err != nil && o.message == "" && kind == format.Protobuf {
		// A new package (a.v1 -> a.v2) keeps the binary encoding: match
		// OLD's message by its short name, as a catalog's event.yaml
		// message: does, rather than refuse to compare.
		if n, serr := formats.LoadFile(args[1], string(old.Compiled.(*protobuf.Schema).Message.Name())); serr == nil {
			nw, err = n, nil
		}
	}
	if err != nil {
		return err
	}
	opts := compat.Options{Profile: profile, Seed: o.seed}
	if o.samplesSet {
		opts.Samples = o.samples
		if o.samples == 0 {
			opts.Samples = -1
		}
	}
	vp := compat.VersionPair{Pair: compat.Pair{OldFile: old.File, NewFile: nw.File, Subject: old.File + " -> " + nw.File}, Old: old, New: nw}
	rep := &report.Report{Command: "compat diff", Checked: 1, Unit: "schema pair", Rules: formats.RuleDocs(), ToolVersion: buildVersion()}
	for _, dir := range []compat.Direction{compat.Backward, compat.Forward} {
		if (dir == compat.Backward && !o.mode.Backward()) || (dir == compat.Forward && !o.mode.Forward()) {
			continue
		}
		rep.Findings = append(rep.Findings, compat.CompareFormat(vp, dir, opts, formats.Comparers())...)
	}
	if err := report.Write(a.stdout, o.format, rep); err != nil {
		return err
	}
	if rep.Failed() {
		return errFindings
	}
	return nil
}
