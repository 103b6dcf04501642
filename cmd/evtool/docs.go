package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/evtool/evtool/docsite"
)

func (a *app) docsCommand() *cobra.Command {
	var dir, out, title string
	var seed int64
	var samples int
	c := &cobra.Command{
		Use:   "docs --out DIR",
		Short: "Generate a static HTML site documenting the catalog",
		Long: `Generate a static site documenting the catalog in --dir into --out:

  index.html                    every event type: owner, topic, latest version,
                                compatibility mode and the gate's verdict
  types/<type>/index.html       the type: event.yaml, versions, latest fields
  types/<type>/v<N>.html        a version: field table (path, type, required,
                                constraints, description), examples, schema
  types/<type>/v<N-1>-v<N>.html what changed: fields added, removed and changed,
                                with the compatibility findings and
                                counterexamples of 'evtool compat check'

Search over type and field names is one small script with its index
(assets/search-index.js; also search-index.json). The site needs no server:
links are relative, so it opens from the file system or any static host.
The output is deterministic: the same catalog gives the same bytes.

--out must be a new or empty directory, or one evtool docs wrote before: then
files it no longer generates are removed, and nothing else is touched.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usagef("evtool docs: --out is required (the directory to write the site into)")
			}
			if info, err := os.Stat(dir); err != nil || !info.IsDir() {
				return fmt.Errorf("catalog directory %s does not exist", dir)
			}
			cat, err := loadCatalog(cmd.Context(), dir)
			if err != nil {
				return err
			}
			cs, err := loadContracts(dir, cat)
			if err != nil {
				return err
			}
			opts := docsite.Options{Title: title, Seed: seed, Consumers: cs, Context: cmd.Context()}
			if cmd.Flags().Changed("samples") {
				opts.Samples = samples
				if samples == 0 {
					opts.Samples = -1
				}
			}
			site, err := docsite.Build(cat, opts)
			if err != nil {
				return err
			}
			if err := site.Write(out); err != nil {
				if errors.Is(err, docsite.ErrNotSite) {
					return usageError{err}
				}
				return err
			}
			n := 0
			for _, p := range site.Paths() {
				if len(p) > 5 && p[len(p)-5:] == ".html" {
					n++
				}
			}
			fmt.Fprintf(a.stdout, "wrote %d pages to %s; open %s\n", n, out, out+string(os.PathSeparator)+"index.html")
			return nil
		},
	}
	dirFlag(c, &dir)
	c.Flags().StringVarP(&out, "out", "o", "", "directory to write the site into (required)")
	c.Flags().StringVar(&title, "title", "", `title of the site (default "<catalog directory name> events")`)
	c.Flags().IntVar(&samples, "samples", 0, "witness documents per pair and direction for the compatibility findings (default: evtool.yaml compat.samples, else 24; 0: rules only)")
	c.Flags().Int64Var(&seed, "seed", 1, "seed of witness search (as evtool compat check --seed)")
	return c
}
