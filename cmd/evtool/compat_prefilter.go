package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/consumers"
	"github.com/evtool/evtool/report"
	"github.com/evtool/evtool/schemaregistry"
)

// prefilterAgainst runs the byte-level prefilter of an incremental check
// against a git revision (catalog.PrefilterGit): nil when the check is
// full, the base is a directory or a registry, consumer contracts need
// the whole catalog compiled, or the prefilter says the whole catalog
// must be loaded. Its error is git's (an unknown revision), which loading
// the base would report the same.
func prefilterAgainst(cmd *cobra.Command, dir, against string, full bool) (*catalog.Prefilter, error) {
	if against == "" || full || strings.HasPrefix(against, schemaregistry.AgainstPrefix) {
		return nil, nil
	}
	if info, err := os.Stat(against); err == nil && info.IsDir() {
		return nil, nil
	}
	if cs, _ := consumers.Load(dir); len(cs) > 0 {
		return nil, nil
	}
	pf, _, err := catalog.PrefilterGit(cmd.Context(), dir, against)
	return pf, interruptedLoad(cmd.Context(), dir, err)
}

// interruptedLoad is err, or, when ctx is done (a signal), that the load
// of the catalog in dir was interrupted: git's commands then fail as if
// git had ("signal: killed", "not inside a git work tree").
func interruptedLoad(ctx context.Context, dir string, err error) error {
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("interrupted while loading the catalog %s: %w", dir, context.Cause(ctx))
	}
	return err
}

// loadPrefilteredBase loads the base the prefilter read (loadBase's
// results for a git revision).
func loadPrefilteredBase(ctx context.Context, pf *catalog.Prefilter) (*catalog.Catalog, string, []report.Finding, error) {
	cat, err := catalog.LoadFSDeferredContext(ctx, pf.Base, pf.BaseDisplay)
	if err != nil {
		var le *catalog.LoadError
		if errors.As(err, &le) {
			return cat, pf.BaseDisplay, le.Findings, nil
		}
		return nil, "", nil, err
	}
	return cat, pf.BaseDisplay, nil, nil
}
