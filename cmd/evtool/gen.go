package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/rogpeppe/go-internal/diff"
	"github.com/spf13/cobra"

	"github.com/evtool/evtool/codegen"
	"github.com/evtool/evtool/report"
)

func (a *app) genCommand() *cobra.Command {
	gen := &cobra.Command{
		Use:   "gen",
		Short: "Generate code from the catalog",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usagef("evtool gen: name the language: evtool gen go --out DIR")
		},
	}
	gen.AddCommand(a.genGoCommand())
	return gen
}

func (a *app) genGoCommand() *cobra.Command {
	var dir, out, pkg string
	var check bool
	c := &cobra.Command{
		Use:   "go --out DIR",
		Short: "Generate Go types with validating decoders and typed CloudEvents helpers",
		Long: `Generate a Go package from the catalog in --dir into --out: one file per event
type (a struct per version, its constants, New<Type>V<N>Event and Decode<Type>)
and a shared file (types of shared schema files, Decode, the runtime). Decoding
validates against the version's schema in one pass; keywords the generator does
not translate are validated with the embedded schema, and a note on stderr says
which.

Avro types (v<N>.avsc) decode with Avro's schema resolution: Decode<Type>
reads any version's data (binary, Confluent-framed or Avro's JSON encoding)
as the latest version. Protobuf types get no code (use protoc-gen-go or buf
generate): a warning names each, and a catalog of Protobuf types only exits 2.

--package defaults to the base name of --out. Files in --out that evtool
generated and no longer generates are removed; other files are left alone.

With --check nothing is written: exit 1 with a unified diff when the files in
--out differ from what would be generated (the drift gate for CI), 0 when they
are up to date.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usagef("evtool gen go: --out is required (the directory of the generated package)")
			}
			if pkg == "" {
				abs, err := filepath.Abs(out)
				if err != nil {
					return err
				}
				pkg = codegen.DefaultPackage(abs)
				if pkg == "" {
					return usagef("evtool gen go: cannot derive a package name from %s: pass --package", out)
				}
			}
			if info, err := os.Stat(dir); err != nil || !info.IsDir() {
				return fmt.Errorf("catalog directory %s does not exist", dir)
			}
			cat, err := loadCatalog(cmd.Context(), dir)
			if err != nil {
				return fmt.Errorf("catalog %s: %w", filepath.Clean(dir), err)
			}
			res, err := codegen.Generate(cat, codegen.Options{Package: pkg, Catalog: catalogFromOut(dir, out)})
			if err != nil {
				var ce *codegen.Error
				var pe *codegen.NoGoCodeError
				if errors.As(err, &pe) {
					return fmt.Errorf("nothing to generate: %w", err)
				}
				if errors.As(err, &ce) {
					return fmt.Errorf("cannot generate Go code:\n%s", indent(ce.Error()))
				}
				if strings.Contains(err.Error(), "package name") {
					return usageError{fmt.Errorf("evtool gen go: --package: %w", err)}
				}
				return fmt.Errorf("cannot generate Go code: %w", err)
			}
			for _, sk := range res.Skipped {
				fmt.Fprintf(a.stderr, "evtool: warning: %s\n", report.SafeLines(sk.String()))
			}
			for _, n := range res.Notes {
				fmt.Fprintf(a.stderr, "evtool: note: %s\n", report.SafeLines(fmt.Sprint(n)))
			}
			regen := fmt.Sprintf("evtool gen go --dir %s --out %s --package %s", dir, out, pkg)
			if check {
				drift, err := a.genCheck(out, res.Files)
				if err != nil {
					return err
				}
				if drift > 0 {
					fmt.Fprintf(a.stderr, "evtool: generated code in %s is out of date (%d file(s)); regenerate with: %s\n", out, drift, regen)
					return errFindings
				}
				fmt.Fprintf(a.stdout, "%s: up to date (%d files)\n", out, len(res.Files))
				return nil
			}
			if err := a.genWrite(out, res.Files); err != nil {
				return err
			}
			if hint := missingRequirements(out, res.Files); hint != "" {
				fmt.Fprintf(a.stderr, "evtool: note: %s\n", report.SafeLines(hint))
			}
			return nil
		},
	}
	dirFlag(c, &dir)
	c.Flags().StringVarP(&out, "out", "o", "", "directory of the generated package (created if missing)")
	c.Flags().StringVarP(&pkg, "package", "p", "", "package name (default: the base name of --out)")
	c.Flags().BoolVar(&check, "check", false, "write nothing; exit 1 with a diff when --out is not up to date")
	return c
}

// catalogFromOut returns the catalog directory as seen from the output
// directory, slash-separated, for the generated header; "" (recorded
// nothing) when there is no relative path between them or it cannot be
// recorded on a comment line.
func catalogFromOut(dir, out string) string {
	absDir, err1 := filepath.Abs(dir)
	absOut, err2 := filepath.Abs(out)
	if err1 != nil || err2 != nil {
		return ""
	}
	rel, err := filepath.Rel(absOut, absDir)
	if err != nil || !codegen.CanRecordCatalog(filepath.ToSlash(rel)) {
		return ""
	}
	return filepath.ToSlash(rel)
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}

// generatedFiles returns the .go files in dir that evtool generated.
func generatedFiles(dir string) (map[string][]byte, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string][]byte{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		if bytes.HasPrefix(data, []byte(codegen.Header+"\n")) {
			out[e.Name()] = data
		}
	}
	return out, nil
}

// genCheck prints how out differs from files and returns the number of
// files that differ.
func (a *app) genCheck(out string, files []codegen.File) (int, error) {
	onDisk, err := generatedFiles(out)
	if err != nil {
		return 0, err
	}
	drift := 0
	want := map[string]bool{}
	for _, f := range files {
		want[f.Name] = true
		path := filepath.Join(out, f.Name)
		old, ok := onDisk[f.Name]
		if !ok {
			if data, err := os.ReadFile(path); err == nil {
				old = data // a file of that name that evtool did not write
			} else {
				drift++
				fmt.Fprintf(a.stdout, "missing: %s (evtool gen go would create it)\n", path)
				continue
			}
		}
		if d := diff.Diff(path, old, path+" (generated)", f.Data); d != nil {
			drift++
			// The file on disk is outside bytes (a pull request may edit
			// generated code): its lines are shown escaped.
			io.WriteString(a.stdout, report.SafeLines(string(d)))
		}
	}
	var extra []string
	for name := range onDisk {
		if !want[name] {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	for _, name := range extra {
		drift++
		fmt.Fprintf(a.stdout, "extra: %s (generated by evtool, no longer generated: evtool gen go would remove it)\n", report.Escape(filepath.Join(out, name)))
	}
	return drift, nil
}

func (a *app) genWrite(out string, files []codegen.File) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	onDisk, err := generatedFiles(out)
	if err != nil {
		return err
	}
	wrote := 0
	want := map[string]bool{}
	for _, f := range files {
		want[f.Name] = true
		path := filepath.Join(out, f.Name)
		if old, err := os.ReadFile(path); err == nil {
			if bytes.Equal(old, f.Data) {
				continue
			}
			if _, ours := onDisk[f.Name]; !ours {
				return fmt.Errorf("%s exists and was not generated by evtool: move it away or choose another --out", path)
			}
		}
		if err := os.WriteFile(path, f.Data, 0o644); err != nil {
			return err
		}
		wrote++
		fmt.Fprintf(a.stdout, "wrote %s\n", path)
	}
	for _, name := range slices.Sorted(maps.Keys(onDisk)) {
		if !want[name] {
			path := filepath.Join(out, name)
			if err := os.Remove(path); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "removed %s (no longer generated)\n", report.Escape(path))
		}
	}
	fmt.Fprintf(a.stdout, "%s: %d files, %d changed\n", out, len(files), wrote)
	return nil
}
