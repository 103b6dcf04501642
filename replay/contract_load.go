package replay

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/consumers"
	"github.com/evtool/evtool/internal/yamldoc"
)

// loadContract reads the scenario's consumer.contract (nil without one)
// with the catalog's strict contract parser.
func (h *Harness) loadContract() (*Contract, error) {
	c := &h.sc.Consumer
	if c.Contract == "" {
		if h.opts.ContractFields != nil {
			return nil, errors.New("--contract-field needs a scenario with consumer.contract")
		}
		return nil, nil
	}
	bad := func(format string, args ...any) error {
		return &ScenarioError{File: h.sc.File, Problems: []yamldoc.Problem{{Line: c.ContractLine, Pointer: "/consumer/contract", Message: fmt.Sprintf(format, args...)}}}
	}
	f, err := os.Open(c.Contract)
	if err != nil {
		return nil, bad("cannot read the contract: %v", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && !st.Mode().IsRegular() {
		return nil, bad("the contract %s is not a regular file", c.Contract)
	}
	data, err := io.ReadAll(io.LimitReader(f, catalog.MaxFileSize+1))
	if err != nil {
		return nil, bad("cannot read the contract: %v", err)
	}
	parsed, err := consumers.Parse(c.Contract, data)
	if err != nil {
		return nil, err
	}
	out := &Contract{Name: parsed.Name, File: parsed.File, Reads: map[string][]string{}}
	for typ, r := range parsed.Reads {
		out.Reads[typ] = r.Pointers()
	}
	return out, nil
}
