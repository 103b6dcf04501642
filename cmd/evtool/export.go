package main

import (
	"fmt"
	"github.com/evtool/evtool/report"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/evtool/evtool/asyncapi"
)

func (a *app) exportCommand() *cobra.Command {
	export := &cobra.Command{
		Use:   "export",
		Short: "Export the catalog in another ecosystem's format",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usagef("evtool export: name the format: evtool export asyncapi")
		},
	}
	export.AddCommand(a.exportAsyncAPICommand())
	return export
}

func (a *app) exportAsyncAPICommand() *cobra.Command {
	var dir, out, title string
	c := &cobra.Command{
		Use:   "asyncapi [--out FILE]",
		Short: "Export the catalog as an AsyncAPI 3.0 document",
		Long: `Export the catalog in --dir as an AsyncAPI 3.0 document: one channel per Kafka
topic, one message per event type and version, the CloudEvents Kafka binding
headers (binary content mode) as each message's headers schema, the version's
schema as its payload (JSON Schema; Avro and Protobuf embedded with their
schemaFormat), owners and descriptions from event.yaml, and the
catalog's examples.

The document is self-contained: every schema file a version reaches (shared
files included) is an entry of components.schemas and every $ref points inside
the document. Schemas are carried as AsyncAPI Schema Objects (JSON Schema
draft-07): 2020-12 keywords with a draft-07 spelling are translated, and a
keyword without one is kept as written with a warning on stderr.

YAML on stdout by default; --out writes a file, JSON when its name ends in
.json, YAML for .yaml or .yml. The output is deterministic.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			asJSON := false
			if out != "" {
				switch strings.ToLower(filepath.Ext(out)) {
				case ".json":
					asJSON = true
				case ".yaml", ".yml":
				default:
					return usagef("evtool export asyncapi: --out %s: name a .yaml, .yml or .json file (the extension picks the format)", out)
				}
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
			doc, err := asyncapi.Build(cat, asyncapi.Options{Title: title, Consumers: cs})
			if err != nil {
				return err
			}
			for _, w := range doc.Warnings {
				fmt.Fprintf(a.stderr, "evtool: warning: %s\n", report.SafeLines(fmt.Sprint(w)))
			}
			var data []byte
			if asJSON {
				data, err = doc.JSON()
			} else {
				data, err = doc.YAML()
			}
			if err != nil {
				return err
			}
			if out == "" {
				_, err = a.stdout.Write(data)
				return err
			}
			if err := os.WriteFile(out, data, 0o644); err != nil {
				return err
			}
			return nil
		},
	}
	dirFlag(c, &dir)
	c.Flags().StringVarP(&out, "out", "o", "", "write to FILE (.json for JSON, .yaml/.yml for YAML) instead of stdout")
	c.Flags().StringVar(&title, "title", "", `info.title of the document (default "<catalog directory name> events")`)
	return c
}
