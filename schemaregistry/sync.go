package schemaregistry

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/jsonpos"
	"github.com/evtool/evtool/internal/jsonvalue"
	"github.com/evtool/evtool/report"
	"github.com/evtool/evtool/schemaregistry/internal/wire"
)

// Rule ids of push and diff findings.
const (
	RuleSubjectMissing  = "registry-subject-missing"
	RuleSubjectExtra    = "registry-subject-extra"
	RuleVersionMissing  = "registry-version-missing"
	RuleVersionExtra    = "registry-version-extra"
	RuleVersionDiffers  = "registry-version-differs"
	RuleSchemaType      = "registry-schema-type"
	RuleUnreadable      = "registry-schema-unreadable"
	RuleCompatLevel     = "registry-compat-level"
	RuleDuplicate       = "registry-duplicate-version"
	RuleBundle          = "registry-bundle"
	RuleRegistered      = "registry-registered"
	RuleLevelSet        = "registry-level-set"
	RuleRegisterFailed  = "registry-register-failed"
	RuleVerify          = "registry-verify"
	RuleVersionNumbers  = "registry-version-numbers"
	RuleSubjectStrategy = "registry-subject-strategy"
)

// SyncOptions are shared by push, pull and diff.
type SyncOptions struct {
	Strategy Strategy
	// SubjectPrefix limits the registry subjects diff and pull consider.
	SubjectPrefix string
}

// localSubject is a catalog type as it goes to the registry.
type localSubject struct {
	subject string
	t       *catalog.EventType
	mode    catalog.Mode
	forms   []*wire.Form
}

// localSubjects maps the catalog's types to subjects and registry forms.
// Types that cannot be mapped are reported as findings.
func localSubjects(cat *catalog.Catalog, st Strategy, forms *wire.Forms) ([]*localSubject, []report.Finding) {
	var out []*localSubject
	var fs []report.Finding
	bySubject := map[string]string{}
	for _, t := range cat.Types {
		subj, err := st.Subject(t)
		if err != nil {
			fs = append(fs, report.Finding{Rule: RuleSubjectStrategy, Severity: report.SeverityError, File: metaFile(t), Subject: t.Name, Message: err.Error()})
			continue
		}
		if other, dup := bySubject[subj]; dup {
			fs = append(fs, report.Finding{Rule: RuleSubjectStrategy, Severity: report.SeverityError, File: t.Dir, Subject: subj,
				Message: fmt.Sprintf("types %s and %s map to the same subject %s", other, t.Name, subj)})
			continue
		}
		bySubject[subj] = t.Name
		mode, _ := cat.Compat(t)
		ls := &localSubject{subject: subj, t: t, mode: mode}
		ok := true
		seen := map[string]int{}
		for _, v := range t.Versions {
			f, err := forms.Of(v)
			if err != nil {
				fs = append(fs, report.Finding{Rule: RuleBundle, Severity: report.SeverityError, File: v.File, Subject: subj, Message: err.Error()})
				ok = false
				break
			}
			if prev, dup := seen[f.Digest]; dup {
				fs = append(fs, report.Finding{Rule: RuleDuplicate, Severity: report.SeverityError, File: v.File, Subject: subj,
					Message: fmt.Sprintf("v%d has the same content as v%d; a registry keeps one version per distinct schema, so the versions would not line up", v.Number, prev)})
				ok = false
				break
			}
			seen[f.Digest] = v.Number
			ls.forms = append(ls.forms, f)
		}
		if ok {
			out = append(out, ls)
		}
	}
	return out, fs
}

func metaFile(t *catalog.EventType) string {
	if t.MetaFile != "" {
		return t.MetaFile
	}
	return filepath.Join(t.Dir, "event.yaml")
}

// compareVersions lines up a catalog type's versions with the registry's
// (the i-th active registry version is the catalog's v<i>) and reports
// what differs. It returns how many leading versions match.
func compareVersions(ls *localSubject, rs *RemoteSubject, missingSeverity report.Severity) (int, []report.Finding) {
	var fs []report.Finding
	var remote []*RemoteVersion
	if rs != nil {
		remote = rs.Versions
	}
	matched := 0
	for i, rv := range remote {
		n := i + 1
		if n > len(ls.forms) {
			fs = append(fs, report.Finding{Rule: RuleVersionExtra, Severity: report.SeverityError, File: ls.t.Dir, Subject: ls.subject,
				Message: fmt.Sprintf("the registry has version %d (id %d) but the catalog has only v1..v%d", rv.Version, rv.ID, len(ls.forms))})
			continue
		}
		v := ls.t.Versions[i]
		lf := ls.forms[i]
		switch {
		case rv.SchemaType != lf.SchemaType().String():
			fs = append(fs, report.Finding{Rule: RuleSchemaType, Severity: report.SeverityError, File: v.File, Subject: ls.subject,
				Message: fmt.Sprintf("registry version %d (id %d) is %s, not %s like v%d", rv.Version, rv.ID, rv.SchemaType, v.Format.Name(), v.Number)})
		case wire.WithRefs(lf.Kind) && rv.Compiled == nil:
			fs = append(fs, report.Finding{Rule: RuleUnreadable, Severity: report.SeverityError, File: v.File, Subject: ls.subject,
				Message: fmt.Sprintf("registry version %d (id %d): %s", rv.Version, rv.ID, rv.Problem)})
		case wire.WithRefs(lf.Kind) && rv.Digest != lf.Digest:
			fs = append(fs, report.Finding{Rule: RuleVersionDiffers, Severity: report.SeverityError, File: v.File, Subject: ls.subject,
				Message: fmt.Sprintf("v%d differs from registry version %d (id %d) as %s (%s); published versions are immutable: restore the file, or register the change as a new version", v.Number, rv.Version, rv.ID, v.Format.Name(), identityOf(v.Format))})
		case wire.WithRefs(lf.Kind):
			if matched == i {
				matched++
			}
		case rv.Doc == nil:
			fs = append(fs, report.Finding{Rule: RuleUnreadable, Severity: report.SeverityError, File: v.File, Subject: ls.subject,
				Message: fmt.Sprintf("registry version %d (id %d): %s", rv.Version, rv.ID, rv.Problem)})
		case rv.Digest != ls.forms[i].Digest && !namesRegistryDraft(ls.forms[i].Doc, rv.Doc):
			ptr := firstDiff(ls.forms[i].Doc, rv.Doc, "")
			fs = append(fs, report.Finding{Rule: RuleVersionDiffers, Severity: report.SeverityError, File: v.File, Pointer: ptr, Subject: ls.subject,
				Message: fmt.Sprintf("v%d differs from registry version %d (id %d) as canonical JSON (first difference at %s); published versions are immutable: restore the file, or register the change as a new version", v.Number, rv.Version, rv.ID, orRoot(ptr))})
		default:
			if matched == i {
				matched++
			}
		}
	}
	for i := len(remote); i < len(ls.forms); i++ {
		v := ls.t.Versions[i]
		fs = append(fs, report.Finding{Rule: RuleVersionMissing, Severity: missingSeverity, File: v.File, Subject: ls.subject,
			Message: fmt.Sprintf("v%d is not in the registry", v.Number)})
	}
	if rs != nil {
		for i, rv := range remote {
			if rv.Version != i+1 {
				fs = append(fs, report.Finding{Rule: RuleVersionNumbers, Severity: report.SeverityWarning, File: ls.t.Dir, Subject: ls.subject,
					Message: fmt.Sprintf("the registry numbers this subject's versions %s (some were deleted); evtool lines them up by position", versionList(remote))})
				break
			}
		}
	}
	return matched, fs
}

// identityOf says what push and diff compare for a format.
func identityOf(k format.Kind) string {
	if r, ok := wire.RegistryRules(k); ok {
		return r.RegistryIdentity()
	}
	return ""
}

func versionList(vs []*RemoteVersion) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = fmt.Sprint(v.Version)
	}
	return strings.Join(parts, ", ")
}

// firstDiff returns the JSON pointer of the first place two documents
// differ ("" for the root).
func firstDiff(a, b any, ptr string) string {
	switch at := a.(type) {
	case map[string]any:
		bt, ok := b.(map[string]any)
		if !ok {
			return ptr
		}
		keys := map[string]bool{}
		for k := range at {
			keys[k] = true
		}
		for k := range bt {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			av, aok := at[k]
			bv, bok := bt[k]
			p := ptr + "/" + jsonpos.Escape(k)
			if aok != bok {
				return p
			}
			if string(jsonvalue.Canonical(av)) != string(jsonvalue.Canonical(bv)) {
				return firstDiff(av, bv, p)
			}
		}
		return ptr
	case []any:
		bt, ok := b.([]any)
		if !ok || len(at) != len(bt) {
			return ptr
		}
		for i := range at {
			if string(jsonvalue.Canonical(at[i])) != string(jsonvalue.Canonical(bt[i])) {
				return firstDiff(at[i], bt[i], fmt.Sprintf("%s/%d", ptr, i))
			}
		}
	}
	return ptr
}

// Diff compares the catalog with the registry: subjects and versions on
// one side only, versions whose content differs (as canonical JSON), and
// compatibility levels that differ from the catalog's modes (warnings).
// Registry subjects outside the catalog count when they map to a valid
// dotted type name under the strategy (and start with SubjectPrefix).
func Diff(ctx context.Context, c *Client, cat *catalog.Catalog, opts SyncOptions) (*report.Report, error) {
	locals, fs := localSubjects(cat, opts.Strategy, wire.CatalogForms(cat))
	known := map[string]string{}
	for _, ls := range locals {
		known[ls.subject] = ls.t.Name
	}
	all, err := c.Subjects(ctx, opts.SubjectPrefix)
	if err != nil {
		return nil, err
	}
	var fetch []string
	inRegistry := map[string]bool{}
	for _, s := range all {
		inRegistry[s] = true
		if _, ok := known[s]; ok {
			fetch = append(fetch, s)
		} else if typ, _, ok := opts.Strategy.Split(s, nil); ok && strings.Contains(typ, ".") {
			fetch = append(fetch, s)
		}
	}
	remote, err := c.FetchAll(ctx, fetch)
	if err != nil {
		return nil, err
	}
	rep := &report.Report{Command: "registry diff", Unit: "subject"}
	rep.Findings = append(rep.Findings, fs...)
	for _, ls := range locals {
		rep.Checked++
		rs := remote[ls.subject]
		if rs == nil {
			rep.Findings = append(rep.Findings, report.Finding{Rule: RuleSubjectMissing, Severity: report.SeverityError, File: ls.t.Dir, Subject: ls.subject,
				Message: fmt.Sprintf("subject %s is not in the registry (%d catalog version(s) to push)", ls.subject, len(ls.forms))})
			continue
		}
		_, vfs := compareVersions(ls, rs, report.SeverityError)
		rep.Findings = append(rep.Findings, vfs...)
		lvl, err := c.SubjectLevel(ctx, ls.subject)
		if err != nil {
			return nil, err
		}
		if lvl != string(ls.mode) {
			have := lvl
			if have == "" {
				have = "not set (the registry's global level applies)"
			}
			rep.Findings = append(rep.Findings, report.Finding{Rule: RuleCompatLevel, Severity: report.SeverityWarning, File: metaFile(ls.t), Subject: ls.subject,
				Message: fmt.Sprintf("compatibility level is %s; the catalog's mode is %s (push sets it)", have, ls.mode)})
		}
	}
	referenced := referencedSubjects(remote, locals)
	extra := make([]string, 0)
	for s := range remote {
		if _, ok := known[s]; ok || referenced[s] {
			continue
		}
		extra = append(extra, s)
	}
	sort.Strings(extra)
	for _, s := range extra {
		rs := remote[s]
		if rs.Kind() == "" {
			continue // of a schema type evtool does not know
		}
		rep.Checked++
		typ, _, _ := opts.Strategy.Split(s, nil)
		rep.Findings = append(rep.Findings, report.Finding{Rule: RuleSubjectExtra, Severity: report.SeverityError,
			File: filepath.Join(cat.Root, typ), Subject: s,
			Message: fmt.Sprintf("the registry has subject %s (%d version(s)) but the catalog has no type %s; pull it, or narrow the comparison with --subject-prefix", s, len(rs.Versions), typ)})
	}
	rep.Sort()
	return rep, nil
}

// PushOptions configure Push.
type PushOptions struct {
	SyncOptions
	// DryRun reports what would change and changes nothing.
	DryRun bool
	// BypassRegistryCompat registers versions the registry's own checker
	// rejects (409): the subject's level is set to NONE for the
	// registration and restored after. evtool's gate decides compatibility
	// for the catalog; registries judge JSON Schema by their own rules.
	BypassRegistryCompat bool
	// Progress, when set, is told about each change as it is made.
	Progress func(report.Finding)
}

// Push makes the registry hold the catalog: for each type, in catalog
// order, it sets the subject's compatibility level to the type's mode and
// registers the versions the registry lacks, oldest first. It is
// idempotent: a registry already in step is only read. It never changes
// or deletes what the registry has: a registry version that differs from
// the catalog is reported (an error finding) and that subject is skipped.
func Push(ctx context.Context, c *Client, cat *catalog.Catalog, opts PushOptions) (*report.Report, error) {
	locals, fs := localSubjects(cat, opts.Strategy, wire.CatalogForms(cat))
	rep := &report.Report{Command: "registry push", Unit: "subject", Findings: fs}
	note := func(f report.Finding) {
		rep.Findings = append(rep.Findings, f)
		if opts.Progress != nil {
			opts.Progress(f)
		}
	}
	would := ""
	if opts.DryRun {
		would = "would "
	}
	// The registry version of each shared schema's subject, once found or
	// registered.
	sharedVersions := map[string]int{}
	for _, ls := range locals {
		rep.Checked++
		rs, err := c.Subject(ctx, ls.subject)
		if err != nil {
			return rep, err
		}
		matched, vfs := compareVersions(ls, rs, report.SeverityInfo)
		conflict := false
		for _, f := range vfs {
			if f.Severity == report.SeverityError {
				conflict = true
				rep.Findings = append(rep.Findings, f)
			} else if f.Severity == report.SeverityWarning {
				rep.Findings = append(rep.Findings, f)
			}
		}
		if conflict {
			continue
		}
		lvl, err := c.SubjectLevel(ctx, ls.subject)
		if err != nil {
			return rep, err
		}
		if lvl != string(ls.mode) {
			if !opts.DryRun {
				if err := c.SetLevel(ctx, ls.subject, ls.mode); err != nil {
					return rep, err
				}
			}
			from := lvl
			if from == "" {
				from = "unset"
			}
			note(report.Finding{Rule: RuleLevelSet, Severity: report.SeverityInfo, File: metaFile(ls.t), Subject: ls.subject,
				Message: fmt.Sprintf("%sset compatibility to %s (was %s)", would, ls.mode, from)})
		}
		for i := matched; i < len(ls.forms); i++ {
			v := ls.t.Versions[i]
			form := ls.forms[i]
			if opts.DryRun {
				if err := pushShared(ctx, c, form, sharedVersions, note, v, true); err != nil {
					return rep, err
				}
				note(report.Finding{Rule: RuleRegistered, Severity: report.SeverityInfo, File: v.File, Subject: ls.subject,
					Message: fmt.Sprintf("would register v%d", v.Number)})
				continue
			}
			if err := pushShared(ctx, c, form, sharedVersions, note, v, false); err != nil {
				if incompatible(err) {
					rep.Findings = append(rep.Findings, report.Finding{Rule: RuleRegisterFailed, Severity: report.SeverityError, File: v.File, Subject: ls.subject,
						Message: fmt.Sprintf("v%d uses a shared schema the registry refused: %v; shared files are registered under their own subjects, by the registry's rules (its level for that subject)", v.Number, err)})
					break
				}
				return rep, err
			}
			schema := sr.Schema{Schema: string(form.Text), Type: form.SchemaType(),
				References: form.References(func(sh *wire.SharedSchema) int { return sharedVersions[sh.Subject] })}
			id, err := c.RegisterSchema(ctx, ls.subject, schema)
			if err != nil && incompatible(err) && opts.BypassRegistryCompat && ls.mode != catalog.ModeNone {
				if err = c.SetLevel(ctx, ls.subject, catalog.ModeNone); err == nil {
					id, err = c.RegisterSchema(ctx, ls.subject, schema)
					if rerr := c.SetLevel(ctx, ls.subject, ls.mode); rerr != nil && err == nil {
						err = rerr
					}
				}
			}
			if err != nil {
				if incompatible(err) {
					rep.Findings = append(rep.Findings, report.Finding{Rule: RuleRegisterFailed, Severity: report.SeverityError, File: v.File, Subject: ls.subject,
						Message: fmt.Sprintf("the registry's own compatibility checker rejected v%d under %s: %v. evtool's gate (evtool compat check) decides for the catalog; to register it anyway rerun with --bypass-registry-compat", v.Number, ls.mode, err)})
					break
				}
				return rep, err
			}
			note(report.Finding{Rule: RuleRegistered, Severity: report.SeverityInfo, File: v.File, Subject: ls.subject,
				Message: fmt.Sprintf("registered v%d (schema id %d)", v.Number, id)})
		}
		if !opts.DryRun && matched < len(ls.forms) {
			after, err := c.Subject(ctx, ls.subject)
			if err != nil {
				return rep, err
			}
			if m, _ := compareVersions(ls, after, report.SeverityInfo); m != len(ls.forms) && !hasRule(rep.Findings, RuleRegisterFailed, ls.subject) {
				rep.Findings = append(rep.Findings, report.Finding{Rule: RuleVerify, Severity: report.SeverityError, File: ls.t.Dir, Subject: ls.subject,
					Message: fmt.Sprintf("after registering, the registry's versions of %s do not line up with v1..v%d (only %d match); run `evtool registry diff`", ls.subject, len(ls.forms), m)})
			}
		}
	}
	return rep, nil
}

// referencedSubjects are the subjects that hold schemas other schemas
// reference (shared named types, imported .proto files): not types.
func referencedSubjects(remote map[string]*RemoteSubject, locals []*localSubject) map[string]bool {
	out := map[string]bool{}
	for _, rs := range remote {
		for _, v := range rs.Versions {
			for _, r := range v.References {
				out[r.Subject] = true
			}
			for _, r := range v.Refs {
				out[r.Subject] = true
			}
		}
	}
	for _, ls := range locals {
		for _, f := range ls.forms {
			for _, sh := range f.Shared {
				out[sh.Subject] = true
			}
		}
	}
	return out
}

// pushShared makes the registry hold the shared schemas form uses, in
// dependency order: each is looked up with its references (Confluent's
// POST /subjects/{s}) and registered only when it is not there.
func pushShared(ctx context.Context, c *Client, form *wire.Form, versions map[string]int, note func(report.Finding), v *catalog.Version, dryRun bool) error {
	for _, sh := range form.Shared {
		if _, ok := versions[sh.Subject]; ok {
			continue
		}
		var refs []sr.SchemaReference
		for _, d := range sh.Deps {
			refs = append(refs, sr.SchemaReference{Name: d, Subject: d, Version: versions[d]})
		}
		schema := sr.Schema{Schema: string(sh.Text), Type: wire.SchemaType(sh.Kind), References: refs}
		n := 0
		if !slices.ContainsFunc(refs, func(r sr.SchemaReference) bool { return r.Version < 0 }) {
			var err error
			if n, _, err = c.Lookup(ctx, sh.Subject, schema); err != nil {
				return err
			}
		}
		if n == 0 && dryRun {
			note(report.Finding{Rule: RuleRegistered, Severity: report.SeverityInfo, File: v.File, Subject: sh.Subject,
				Message: fmt.Sprintf("would register shared schema %s under subject %s, referenced as %q", sh.Rel, sh.Subject, sh.Name)})
			n = -1 // noted once; schemas that use it cannot be looked up with its version
		}
		if n == 0 {
			id, err := c.RegisterSchema(ctx, sh.Subject, schema)
			if err != nil {
				return err
			}
			if n, _, err = c.Lookup(ctx, sh.Subject, schema); err != nil {
				return err
			}
			if n == 0 {
				return fmt.Errorf("registered shared schema %s (id %d) under subject %s, but the registry does not find it there", sh.Rel, id, sh.Subject)
			}
			note(report.Finding{Rule: RuleRegistered, Severity: report.SeverityInfo, File: v.File, Subject: sh.Subject,
				Message: fmt.Sprintf("registered shared schema %s as %s version %d (schema id %d), referenced as %q", sh.Rel, sh.Subject, n, id, sh.Name)})
		}
		versions[sh.Subject] = n
	}
	return nil
}

func hasRule(fs []report.Finding, rule, subject string) bool {
	for _, f := range fs {
		if f.Rule == rule && f.Subject == subject {
			return true
		}
	}
	return false
}

func orRoot(p string) string {
	if p == "" {
		return "the root"
	}
	return p
}
