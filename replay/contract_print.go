package replay

import (
	"bytes"
	"fmt"
)

// contractNarrowing reports the runs that narrow a failing contract run
// down (the text report summarizes them in the contract section).
func contractNarrowing(name string) bool {
	return name == "contract-shrink" || name == "contract-rest"
}

// contractOnly reports a failure that only the contract run found.
func (r *Report) contractOnly() bool {
	if r.Contract == nil || r.Contract.Verdict != Fail {
		return false
	}
	if r.Comparison != nil && !r.Comparison.Equal {
		return false
	}
	for _, run := range r.Runs {
		if run.Failure != nil && run.Name != "contract" && !contractNarrowing(run.Name) {
			return false
		}
	}
	return true
}

// writeContract prints the contract run: what was mutated, and each
// undeclared read with its state diff and reproduce line.
func writeContract(b *bytes.Buffer, cr *ContractReport) {
	if cr == nil {
		return
	}
	fmt.Fprintf(b, "\ncontract %s (%s): %s\n", cr.Consumer, cr.File, cr.Verdict)
	fmt.Fprintf(b, "  %d field(s) it does not list mutated in every event (%d value(s) removed or replaced", len(cr.Fields), cr.Mutations)
	if cr.Kept > 0 {
		fmt.Fprintf(b, ", %d kept: no other valid value", cr.Kept)
	}
	b.WriteString(")\n")
	if cr.Verdict != Fail {
		return
	}
	if cr.Runs > 0 {
		fmt.Fprintf(b, "  narrowed in %d run(s) (budget %d)\n", cr.Runs, cr.Budget)
	}
	for _, f := range cr.Findings {
		fmt.Fprintf(b, "%s: %s [%s]\n", f.File, f.Message, f.Rule)
		if fl := f.Failure; fl != nil && fl.Reason != "expect" {
			fmt.Fprintf(b, "  the run mutating them (%s) failed: %s\n", f.RunID, fl.Message)
			for _, l := range limit(fl.Output, 10) {
				fmt.Fprintf(b, "    | %s\n", l)
			}
		} else if fl != nil {
			fmt.Fprintf(b, "  the run mutating them (%s): %s\n", f.RunID, fl.Message)
		}
		if c := f.Comparison; c != nil && !c.Equal {
			fmt.Fprintf(b, "  state diff of the run mutating them (%s):\n", f.RunID)
			writeComparison(b, c, "(-baseline +mutated)")
		}
		fmt.Fprintf(b, "  reproduce: %s\n", f.Reproduce)
	}
}
