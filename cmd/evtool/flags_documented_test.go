package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestProducerAndDLQFlagsDocumented: every flag of validate, verify, dlq
// inspect, dlq redrive, replay, registry serve/push/pull/diff and compat
// diff is named in the page that documents the command,
// so a flag added to --help is not missing from the docs.
func TestProducerAndDLQFlagsDocumented(t *testing.T) {
	root := (&app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}).rootCommand()
	for _, tc := range []struct {
		command []string
		doc     string
	}{
		{[]string{"validate"}, "docs/verify.md"},
		{[]string{"verify"}, "docs/verify.md"},
		{[]string{"dlq", "inspect"}, "docs/dlq.md"},
		{[]string{"dlq", "redrive"}, "docs/dlq.md"},
		{[]string{"replay"}, "docs/replay.md"},
		{[]string{"registry", "serve"}, "docs/registry.md"},
		{[]string{"registry", "push"}, "docs/registry.md"},
		{[]string{"registry", "pull"}, "docs/registry.md"},
		{[]string{"registry", "diff"}, "docs/registry.md"},
		{[]string{"compat", "diff"}, "docs/compat.md"},
		{[]string{"produce"}, "docs/produce-consume.md"},
		{[]string{"consume"}, "docs/produce-consume.md"},
		{[]string{"consumers", "check"}, "docs/consumers.md"},
		{[]string{"consumers", "who-reads"}, "docs/consumers.md"},
	} {
		cmd, _, err := root.Find(tc.command)
		if err != nil {
			t.Fatal(err)
		}
		text, err := os.ReadFile(filepath.Join("..", "..", tc.doc))
		if err != nil {
			t.Fatal(err)
		}
		readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
		if err != nil {
			t.Fatal(err)
		}
		cmd.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Name == "help" {
				return
			}
			// validate's file flags are documented with file validation in README.
			if !strings.Contains(string(text), "`--"+f.Name) && !strings.Contains(string(readme), "--"+f.Name) {
				t.Errorf("evtool %s --%s is not documented in %s", strings.Join(tc.command, " "), f.Name, tc.doc)
			}
		})
	}
}
