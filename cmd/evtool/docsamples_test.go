package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/testscript"
	"go.yaml.in/yaml/v3"
)

// Documented samples run as tests. A page marks a fenced block with an
// HTML comment on the line before it (invisible in the rendered page):
//
//	<!-- doc-test: run -->       the block's commands run in order: each
//	                             "evtool ..." line as `exec evtool ...`
//	                             (`doc-exit N evtool ...`, the exit code
//	                             checked, when its comment starts
//	                             "# exit N", N not 0); lines ending in "&" (a server
//	                             the reader starts) and comments are
//	                             skipped, "export K=V" sets K
//	<!-- doc-test: file NAME --> the block is the file NAME of the run
//	<!-- doc-test: output -->    the block is a session: each "$ evtool ..."
//	                             line runs as in a run block, and the lines
//	                             up to the next "$ " are its output, stdout
//	                             then stderr, compared exactly; with no
//	                             "$ " line, the output of the command
//	                             before the block
//	<!-- doc-test: output lines --> as output, but each line of the block
//	                             need only be a line of the output (a
//	                             page quoting one line of it)
//
// A file the reader need not see (the input of an output sample) sits in
// a comment: a line "<!-- doc-test: hidden NAME", the file's lines, and a
// line "-->".
//
// and a comment alone, <!-- doc-test: script LINE -->, adds one testscript
// line the reader does not see (a broker for the test, an assertion on
// the output, [short] skip 'WHY' for a page whose samples are too slow for
// the short tier). The samples of one page run as one testscript in a fresh
// directory holding a link "examples" to the repository's examples, with
// the commands of TestScripts (kafka-broker, srfake...), run by its runner.

var docHiddenMarker = regexp.MustCompile(`^<!-- doc-test: hidden (\S+)$`)

var docTestMarker = regexp.MustCompile(`^<!-- doc-test: (run|file|script|output)\s*(.*?)\s*-->$`)

// docSampleScript turns the marked samples of a page into a testscript;
// ok is false when the page has none.
func docSampleScript(t *testing.T, page string) (script string, ok bool) {
	t.Helper()
	f, err := os.Open(page)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		lines   = []string{"symlink examples -> $EXAMPLES"}
		files   []string
		pending string // run or file NAME: the next fenced block's use
		inBlock bool
		block   []string
		fence   string
		lineNo  int
		hidden  string // NAME while inside a hidden file's comment
		outputs int
	)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lineNo++
		l := sc.Text()
		if hidden != "" {
			if strings.TrimSpace(l) == "-->" {
				files = append(files, "-- "+hidden+" --", strings.Join(block, "\n"))
				hidden, block = "", nil
				continue
			}
			block = append(block, l)
			continue
		}
		if inBlock {
			if strings.TrimSpace(l) == fence {
				inBlock = false
				switch {
				case pending == "run":
					for _, cmd := range block {
						if s := docCommand(cmd); s != "" {
							lines = append(lines, s)
						}
					}
				case pending == "output" || pending == "output lines":
					var cmds []string
					cmds, files, outputs = docSession(block, files, outputs, pending == "output lines")
					lines = append(lines, cmds...)
				case strings.HasPrefix(pending, "file "):
					files = append(files, "-- "+strings.TrimPrefix(pending, "file ")+" --", strings.Join(block, "\n"))
				}
				pending, block = "", nil
				continue
			}
			block = append(block, l)
			continue
		}
		if m := docHiddenMarker.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			ok, hidden = true, m[1]
			continue
		}
		if m := docTestMarker.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			ok = true
			switch m[1] {
			case "script":
				lines = append(lines, m[2])
			case "run":
				pending = m[1]
			case "output":
				if m[2] != "" && m[2] != "lines" {
					t.Fatalf("%s:%d: doc-test: output takes only \"lines\", not %q", page, lineNo, m[2])
				}
				pending = strings.TrimSpace("output " + m[2])
			case "file":
				if m[2] == "" {
					t.Fatalf("%s:%d: doc-test: file needs a NAME", page, lineNo)
				}
				pending = "file " + m[2]
			}
			continue
		}
		if trimmed := strings.TrimSpace(l); strings.HasPrefix(trimmed, "```") {
			if pending == "" {
				fence, inBlock = "```", true
				pending = "skip"
				continue
			}
			fence, inBlock = "```", true
			continue
		}
		if pending != "" && pending != "skip" && strings.TrimSpace(l) != "" {
			t.Fatalf("%s:%d: a doc-test marker must come right before its fenced block", page, lineNo)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if inBlock {
		t.Fatalf("%s: unclosed fenced block", page)
	}
	if hidden != "" {
		t.Fatalf("%s: hidden file %s has no closing -->", page, hidden)
	}
	return strings.Join(lines, "\n") + "\n\n" + strings.Join(files, "\n") + "\n", ok
}

// docSession turns an output block into script lines: each "$ " command,
// then a doc-output check of the lines after it against a file added to
// files (n numbers those files across the page); lines: each line need
// only be in the output.
func docSession(block, files []string, n int, lines bool) (cmds, outFiles []string, next int) {
	var want []string
	check := "doc-output "
	if lines {
		check += "-lines "
	}
	flush := func() {
		if len(cmds) == 0 && len(want) == 0 {
			return
		}
		n++
		name := fmt.Sprintf("doc-output-%d", n)
		files = append(files, "-- "+name+" --", strings.Join(want, "\n"))
		cmds = append(cmds, check+"$WORK/"+name)
		want = nil
	}
	for _, l := range block {
		if strings.HasPrefix(l, "$ ") {
			flush()
			if s := docCommand(l); s != "" {
				cmds = append(cmds, s)
			}
			continue
		}
		want = append(want, l)
	}
	flush()
	return cmds, files, n
}

// docOutput is the script command doc-output [-lines] FILE: the last
// command's stdout then stderr must be FILE's text (-lines: must have each
// line of FILE as a line).
func docOutput(ts *testscript.TestScript, neg bool, args []string) {
	lines := len(args) == 2 && args[0] == "-lines"
	if neg || len(args) != 1 && !lines {
		ts.Fatalf("usage: doc-output [-lines] FILE")
	}
	got := ts.ReadFile("stdout") + ts.ReadFile("stderr")
	want := ts.ReadFile(args[len(args)-1])
	if lines {
		have := map[string]bool{}
		for _, l := range strings.Split(got, "\n") {
			have[l] = true
		}
		for _, l := range strings.Split(strings.TrimSuffix(want, "\n"), "\n") {
			if !have[l] {
				ts.Fatalf("the sample's line is not in the output:\n%s\noutput:\n%s", l, got)
			}
		}
		return
	}
	if got != want {
		ts.Fatalf("the sample's output differs (-doc +got):\n%s", cmp.Diff(want, got))
	}
}

var docExit = regexp.MustCompile(`\s+#\s*exit\s+(\d+)\b.*$`)

// docCommand is the testscript line of one line of a run sample ("" to
// skip it).
func docCommand(l string) string {
	l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "$ "))
	code := "0"
	if m := docExit.FindStringSubmatch(l); m != nil {
		code = m[1]
		l = strings.TrimSpace(l[:len(l)-len(m[0])])
	} else if i := strings.Index(l, " #"); i >= 0 {
		l = strings.TrimSpace(l[:i])
	}
	switch {
	case l == "" || strings.HasPrefix(l, "#") || strings.HasSuffix(l, "&"):
		return ""
	case strings.HasPrefix(l, "export "):
		return "env " + strings.TrimPrefix(l, "export ")
	}
	if code != "0" {
		return "doc-exit " + code + " " + l
	}
	return "exec " + l
}

// docExitCmd is the script command doc-exit N PROGRAM [ARG...]: it runs
// the program as exec does and wants exit code N, since 1 (findings) and
// 2 (usage or system error) mean different things.
func docExitCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: doc-exit N PROGRAM [ARG...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("doc-exit: %v", err)
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			ts.Fatalf("%v", err)
		}
		got = exit.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit code %d, the sample says %d", got, want)
	}
}

// TestDocSamples runs the marked samples of README.md and docs/*.md.
func TestDocSamples(t *testing.T) {
	t.Parallel()
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, "../../README.md")
	dir := t.TempDir()
	n := 0
	for _, page := range pages {
		script, ok := docSampleScript(t, page)
		if !ok {
			continue
		}
		n++
		name := strings.TrimSuffix(filepath.Base(page), ".md") + ".txtar"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(fmt.Sprintf("# samples of %s\n%s", page, script)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if n == 0 {
		t.Fatal("no page has doc-test samples")
	}
	// The scripts' runner; a page's samples need what its script lines
	// say (a broker, a registry, the full tier: [short] skip).
	runScripts(t, dir, false)
}

// TestDocCommand: how sample lines become script lines.
func TestDocCommand(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"evtool consume --topic orders", "exec evtool consume --topic orders"},
		{"$ evtool lint   # the catalog", "exec evtool lint"},
		{"evtool produce --topic o bad.jsonl   # exit 2", "doc-exit 2 evtool produce --topic o bad.jsonl"},
		{"evtool lint # exit 0", "exec evtool lint"},
		{"evtool registry diff   # exit 1: nothing registered", "doc-exit 1 evtool registry diff"},
		{"evtool lint # exits when done", "exec evtool lint"},
		{"evtool broker &", ""},
		{"# a comment", ""},
		{"export EVTOOL_BROKERS=127.0.0.1:9092", "env EVTOOL_BROKERS=127.0.0.1:9092"},
	} {
		if got := docCommand(tc.in); got != tc.want {
			t.Errorf("docCommand(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// docFile returns the block a page marks <!-- doc-test: file NAME -->.
func docFile(t *testing.T, page, name string) string {
	t.Helper()
	text, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	marker := "<!-- doc-test: file " + name + " -->\n"
	i := strings.Index(string(text), marker)
	if i < 0 {
		t.Fatalf("%s has no block marked %q", page, strings.TrimSpace(marker))
	}
	rest := string(text[i+len(marker):])
	open := strings.Index(rest, "\n")
	end := strings.Index(rest, "\n```")
	if !strings.HasPrefix(rest, "```") || open < 0 || end < open {
		t.Fatalf("%s: no fenced block after %q", page, strings.TrimSpace(marker))
	}
	return rest[open+1 : end+1]
}

// TestVerifyDocSample runs docs/verify.md's scenario sample, which
// describes examples/orders, against that example: only the producer is
// the prebuilt binary instead of `go run` (and paths are absolute); its
// chaos and its expect are the page's.
func TestVerifyDocSample(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs child consumers or producers through kfake end to end (minutes on a loaded machine); TestScripts and TestDocSamples stand for the CLI in the short tier")
	}
	if testing.Short() {
		t.Skip("builds and runs the example producer")
	}
	// Most of its minute is the producer's quiet periods: overlap them.
	t.Parallel()
	var sc map[string]any
	if err := yaml.Unmarshal([]byte(docFile(t, "../../docs/verify.md", "verify.yaml")), &sc); err != nil {
		t.Fatal(err)
	}
	if sc["expect"] == nil {
		t.Fatal("the sample has no expect")
	}
	dir, bin, catalog := exampleProducer(t)
	sc["catalog"] = catalog
	prod := sc["producer"].(map[string]any)
	prod["run"], prod["dir"] = []string{bin}, dir
	prod["ready_timeout"] = "120s"
	b, err := yaml.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "verify.yaml")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"verify", path}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("the documented scenario fails against examples/orders: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
}

// TestDocSession: how an output block becomes commands and the files of
// their expected output.
func TestDocSession(t *testing.T) {
	for _, tc := range []struct {
		name      string
		block     []string
		lines     bool
		wantCmds  []string
		wantFiles []string
	}{
		{
			name:      "one command",
			block:     []string{"$ evtool lint --dir cat   # exit 2", "a finding", "evtool: malformed"},
			wantCmds:  []string{"doc-exit 2 evtool lint --dir cat", "doc-output $WORK/doc-output-1"},
			wantFiles: []string{"-- doc-output-1 --", "a finding\nevtool: malformed"},
		},
		{
			name:     "two commands",
			block:    []string{"$ evtool a", "out a", "$ evtool b"},
			wantCmds: []string{"exec evtool a", "doc-output $WORK/doc-output-1", "exec evtool b", "doc-output $WORK/doc-output-2"},
			wantFiles: []string{"-- doc-output-1 --", "out a",
				"-- doc-output-2 --", ""},
		},
		{
			name:      "the previous command's lines",
			block:     []string{"evtool: note: x"},
			lines:     true,
			wantCmds:  []string{"doc-output -lines $WORK/doc-output-1"},
			wantFiles: []string{"-- doc-output-1 --", "evtool: note: x"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmds, files, n := docSession(tc.block, nil, 0, tc.lines)
			if d := cmp.Diff(tc.wantCmds, cmds); d != "" {
				t.Errorf("commands (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.wantFiles, files); d != "" {
				t.Errorf("files (-want +got):\n%s", d)
			}
			if n != len(tc.wantFiles)/2 {
				t.Errorf("n = %d, want %d", n, len(tc.wantFiles)/2)
			}
		})
	}
}
