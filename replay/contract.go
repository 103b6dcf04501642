package replay

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/internal/jsonpos"
	"github.com/evtool/evtool/report"
)

// RuleUndeclaredRead is the rule id of a contract run's finding: the
// consumer's state depends on a field its contract does not list.
const RuleUndeclaredRead = "consumer-reads-undeclared"

// Contract is what a contract run proves: a consumer's name, its contract
// file, and per event type the pointers it declares it reads ("": all of
// the data).
type Contract struct {
	Name  string
	File  string
	Reads map[string][]string
}

// Declares reports whether the contract lists f: a pointer it lists is f,
// or an object holding f, or inside f (f is read as a whole then). A
// field's "-" (every item of an array) is listed by the contract's "-" or
// by any index there: a contract that reads /lines/0/sku is taken to read
// /lines/-/sku, so mutating the other items' sku cannot blame it.
func (c *Contract) Declares(f Field) bool {
	ft := jsonpos.Split(f.Pointer)
	for _, p := range c.Reads[f.Type] {
		if p == "" {
			return true
		}
		pt := jsonpos.Split(p)
		match := true
		for i := range min(len(ft), len(pt)) {
			if ft[i] != pt[i] && (ft[i] != "-" || !isIndex(pt[i])) {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// isIndex reports whether a pointer token is an array index.
func isIndex(tok string) bool {
	if tok == "" {
		return false
	}
	for _, r := range tok {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// ContractReport is the outcome of a contract run.
type ContractReport struct {
	Consumer string  `json:"consumer"`
	File     string  `json:"file"`
	Verdict  Verdict `json:"verdict"`
	Summary  string  `json:"summary"`
	// Fields are the fields of the events the contract does not list:
	// every one was mutated in the contract run.
	Fields []Field `json:"fields"`
	// Mutations counts the values removed or replaced; Kept the values
	// that no other valid value was found for (left as they were).
	Mutations int64 `json:"mutations"`
	Kept      int64 `json:"kept"`
	// Run is the run with every field mutated, and Failure and Comparison
	// what it saw.
	Run        string      `json:"run"`
	Failure    *Failure    `json:"failure,omitempty"`
	Comparison *Comparison `json:"comparison,omitempty"`
	// Findings name the undeclared fields the consumer reads.
	Findings []ContractFinding `json:"findings,omitempty"`
	// Budget is the most runs narrowing could make; Runs how many it made.
	Budget int `json:"budget"`
	Runs   int `json:"runs"`
}

// ContractFinding is a set of undeclared fields whose mutation changes
// the consumer's state: 1-minimal (each of them matters) unless the shrink
// budget ran out first.
type ContractFinding struct {
	report.Finding
	Fields  []Field `json:"fields"`
	Minimal bool    `json:"minimal"`
	// Run is the run that mutated exactly these fields, and Failure and
	// Comparison (the state diff, -baseline +mutated) what it saw.
	RunID      string      `json:"run"`
	Failure    *Failure    `json:"failure,omitempty"`
	Comparison *Comparison `json:"comparison,omitempty"`
	// Reproduce replays the baseline and a contract run mutating only
	// these fields.
	Reproduce string `json:"reproduce"`
}

// dataFields lists the fields of the events' data, sorted by type and
// pointer, keeping those keep accepts, and the versions of the events
// each field was seen in (sorted).
func (h *Harness) dataFields(ctx context.Context, keep func(Field) bool) ([]Field, map[Field][]int, error) {
	src, err := h.openSource()
	if err != nil {
		return nil, nil, err
	}
	defer src.close()
	seen := map[Field]bool{}
	versions := map[Field][]int{}
	for {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		raw, ok, err := src.next()
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			break
		}
		if raw.Err != nil {
			continue
		}
		ed, ok := h.mut.decodeEventData(raw.Raw)
		if !ok {
			continue
		}
		leaves(ed.value, "", func(p string) {
			f := Field{ed.ver.Type, p}
			if !seen[f] && keep(f) {
				seen[f] = true
			}
			if vs := versions[f]; seen[f] && !slices.Contains(vs, ed.ver.Number) {
				versions[f] = append(vs, ed.ver.Number)
				slices.Sort(versions[f])
			}
		})
	}
	out := make([]Field, 0, len(seen))
	for f := range seen {
		out = append(out, f)
	}
	sortFields(out)
	return out, versions, nil
}

func sortFields(fs []Field) {
	sort.Slice(fs, func(i, j int) bool {
		if fs[i].Type != fs[j].Type {
			return fs[i].Type < fs[j].Type
		}
		return fs[i].Pointer < fs[j].Pointer
	})
}

// mutationRun runs the consumer on the events with the given fields
// mutated, judges it against the baseline, and reports whether its state
// (or its run) differs.
func (h *Harness) mutationRun(ctx context.Context, rep *Report, base *RunResult, name string, fields []Field) (*RunResult, *fieldMutation, bool, error) {
	fm := newFieldMutation(h.mut, h.seed, fields)
	r, err := h.Run(ctx, RunSpec{Name: name, mutation: fm})
	if err != nil {
		return nil, nil, false, err
	}
	rep.Runs = append(rep.Runs, r)
	differs, err := h.judgeRun(base, r)
	if err != nil {
		return nil, nil, false, err
	}
	return r, fm, differs, nil
}

// ContractRun mutates every field the contract does not list and checks
// that the consumer ends in the baseline's state. When it does not, it
// narrows the mutated fields down to the ones the consumer reads with
// delta debugging (chaos.Shrink), again on what is left, within the
// shrink budget. only, when set, mutates just those fields (a reproduce
// line) and narrows nothing.
func (h *Harness) ContractRun(ctx context.Context, rep *Report, base *RunResult, c *Contract, only []Field) (*ContractReport, error) {
	cr := &ContractReport{Consumer: c.Name, File: c.File}
	rep.Contract = cr
	fields := only
	if fields == nil {
		var err error
		if fields, _, err = h.dataFields(ctx, func(f Field) bool { return !c.Declares(f) }); err != nil {
			return cr, fmt.Errorf("contract run: reading the events' fields: %w", err)
		}
	}
	cr.Fields = fields
	if len(fields) == 0 {
		cr.Verdict = Pass
		cr.Summary = fmt.Sprintf("the contract of %s lists every field of the events: nothing to mutate", c.Name)
		return cr, nil
	}
	r, fm, differs, err := h.mutationRun(ctx, rep, base, "contract", fields)
	if err != nil {
		return cr, fmt.Errorf("contract run: %w", err)
	}
	cr.Run, cr.Failure = r.ID, r.Failure
	cr.Mutations, cr.Kept = fm.mutated.Load(), fm.kept.Load()
	if r.Failure == nil {
		cmp, err := h.compareRuns(base, r)
		if err != nil {
			return cr, fmt.Errorf("contract run: %w", err)
		}
		cr.Comparison = &cmp
	}
	if !differs {
		cr.Verdict = Pass
		cr.Summary = fmt.Sprintf("%s ends in the baseline state with the %d field(s) its contract does not list mutated (%d value(s) changed)", c.Name, len(fields), cr.Mutations)
		return cr, nil
	}
	cr.Verdict = Fail
	if only != nil {
		cr.Findings = append(cr.Findings, h.contractFinding(c, fields, false, r, base))
		cr.Summary = cr.Findings[0].Message
		return cr, nil
	}
	switch cr.Budget = h.opts.ShrinkBudget; {
	case cr.Budget == 0:
		cr.Budget = DefaultShrinkBudget
	case cr.Budget < 0:
		cr.Budget = 0
	}
	if err := h.narrowContract(ctx, rep, base, c, cr, fields, r); err != nil {
		return cr, err
	}
	if len(cr.Findings) == 0 {
		cr.Findings = append(cr.Findings, h.contractFinding(c, fields, len(fields) == 1, r, base))
	}
	msgs := make([]string, len(cr.Findings))
	for i, f := range cr.Findings {
		msgs[i] = f.Message
	}
	cr.Summary = strings.Join(msgs, "; ")
	return cr, nil
}

// narrowContract finds 1-minimal sets of fields whose mutation changes the
// state: ddmin over the failing set, then again over what is left without
// the sets found, while the rest still fails and the budget lasts.
func (h *Harness) narrowContract(ctx context.Context, rep *Report, base *RunResult, c *Contract, cr *ContractReport, fields []Field, full *RunResult) error {
	left := fields
	failing := full
	for len(left) > 0 && cr.Runs < cr.Budget {
		idx := make([]int, len(left))
		for i := range idx {
			idx[i] = i
		}
		runs := map[string]*RunResult{}
		pick := func(sub []int) []Field {
			out := make([]Field, len(sub))
			for i, j := range sub {
				out[i] = left[j]
			}
			return out
		}
		var res chaos.ShrinkResult
		var err error
		if len(left) == 1 {
			res = chaos.ShrinkResult{Faults: []int{0}, Minimal: true}
		} else {
			res, err = chaos.Shrink(ctx, idx, nil, cr.Budget-cr.Runs, func(ctx context.Context, sub []int) (bool, error) {
				h.logf("contract: trying %d mutated field(s)", len(sub))
				r, _, differs, err := h.mutationRun(ctx, rep, base, "contract-shrink", pick(sub))
				if err != nil {
					return false, err
				}
				if differs {
					runs[chaos.Only(sub...).String()] = r
				}
				return differs, nil
			})
		}
		cr.Runs += res.Tests
		if err != nil {
			if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
				return err
			}
			rep.Warnings = append(rep.Warnings, "narrowing the contract run stopped: "+err.Error())
			res.Minimal = false
		}
		found := pick(res.Faults)
		r := runs[chaos.Only(res.Faults...).String()]
		if r == nil {
			r = failing
		}
		cr.Findings = append(cr.Findings, h.contractFinding(c, found, res.Minimal, r, base))
		if !res.Minimal || len(found) == len(left) {
			return nil
		}
		// The rest, without the fields found: does it still fail?
		in := map[Field]bool{}
		for _, f := range found {
			in[f] = true
		}
		var rest []Field
		for _, f := range left {
			if !in[f] {
				rest = append(rest, f)
			}
		}
		if cr.Runs >= cr.Budget {
			return nil
		}
		cr.Runs++
		r, _, differs, err := h.mutationRun(ctx, rep, base, "contract-rest", rest)
		if err != nil {
			return err
		}
		if !differs {
			return nil
		}
		left, failing = rest, r
	}
	return nil
}

// contractFinding describes a set of undeclared fields that changes the
// consumer's state.
func (h *Harness) contractFinding(c *Contract, fs []Field, minimal bool, r, base *RunResult) ContractFinding {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.String()
	}
	var msg string
	switch {
	case len(fs) == 1 && minimal:
		msg = fmt.Sprintf("%s reads %s, which its contract does not list", c.Name, names[0])
	case minimal:
		msg = fmt.Sprintf("%s reads %s (mutated together), which its contract does not list", c.Name, strings.Join(names, " and "))
	default:
		msg = fmt.Sprintf("%s reads one or more of %s, which its contract does not list (the shrink budget ran out before narrowing them down)", c.Name, strings.Join(names, ", "))
	}
	f := ContractFinding{
		Finding:   report.Finding{Rule: RuleUndeclaredRead, Severity: report.SeverityError, Message: msg, File: c.File, Subject: c.Name},
		Fields:    fs,
		Minimal:   minimal,
		RunID:     r.ID,
		Failure:   r.Failure,
		Reproduce: h.contractReproduce(fs),
	}
	if len(fs) > 0 {
		f.Type, f.Pointer = fs[0].Type, fs[0].Pointer
	}
	if r.Failure == nil {
		if cmp, err := h.compareRuns(base, r); err == nil {
			f.Comparison = &cmp
		}
	}
	return f
}

// contractReproduce is the command that replays the baseline and a
// contract run mutating exactly fs.
func (h *Harness) contractReproduce(fs []Field) string {
	words := []string{ReproduceCommand(h.opts.Command, h.seed, chaos.All(), h.opts.Brokers, h.opts.Client), "--baselines", "1"}
	for _, f := range fs {
		words = append(words, "--contract-field", shellQuote(f.Type+":"+f.Pointer))
	}
	return strings.Join(words, " ")
}

// ParseContractField reads a --contract-field value: TYPE:POINTER, split
// at the first ":/" (or ':' before an empty pointer at the end).
func ParseContractField(s string) (Field, error) {
	if i := strings.Index(s, ":/"); i > 0 {
		return Field{s[:i], s[i+1:]}, nil
	}
	return Field{}, fmt.Errorf("--contract-field %q: want TYPE:POINTER, e.g. com.example.order.placed:/customer/email", s)
}

// withContract folds the contract run's verdict into the report's: a
// failing contract run fails the replay.
func (h *Harness) withContract(rep *Report) *Report {
	cr := rep.Contract
	if cr == nil || cr.Verdict != Fail {
		return rep
	}
	switch rep.Verdict {
	case Pass, "":
		rep.Verdict, rep.Summary = Fail, "contract run: "+cr.Summary
	case Fail:
		rep.Summary += "; contract run: " + cr.Summary
	}
	return rep
}
