package main

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"evtool": func() {
			os.Exit(runUntilSignalled(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

// update rewrites the files the scripts compare output with (cmp stdout
// FILE) from the output: go test ./cmd/evtool -run TestScripts -update.
var update = flag.Bool("update", false, "update the golden files of the testscripts")

// scriptRoot holds the CLI testscripts: the scripts of the root directly,
// each subdirectory's as a subtest of its own.
const scriptRoot = "../../testdata/script"

// TestScripts runs the CLI testscripts of testdata/script and of each of
// its subdirectories: each .txtar is a shell-like session of evtool
// commands with expected output and exit codes. The scripts of the root
// are TestScripts/NAME, those of a subdirectory TestScripts/DIR/NAME
// (-run 'TestScripts/^registry$' runs a directory). A new directory needs
// no Go code: what its scripts need (a registry, a broker, the example
// consumer, the full tier) they say with commands and conditions.
func TestScripts(t *testing.T) {
	dirs, err := scriptDirs(scriptRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range dirs {
		if dir == scriptRoot {
			runScripts(t, dir, *update)
			continue
		}
		rel, err := filepath.Rel(scriptRoot, dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.ToSlash(rel), func(t *testing.T) { runScripts(t, dir, *update) })
	}
}

// scriptDirs returns root and the directories under it that hold scripts
// (what testscript runs: .txtar and .txt files), root first.
func scriptDirs(root string) ([]string, error) {
	dirs := []string{root}
	seen := map[string]bool{root: true}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if dir := filepath.Dir(p); !seen[dir] && (strings.HasSuffix(p, ".txtar") || strings.HasSuffix(p, ".txt")) {
			seen[dir] = true
			dirs = append(dirs, dir)
		}
		return nil
	})
	return dirs, err
}

// runScripts is the one testscript runner: the scripts of dir (testscript
// runs each as a parallel subtest) with every script command, condition
// and variable. update rewrites the golden files in the archives; only
// for archives kept in the repository (not the doc samples, written to a
// temporary directory on every run, where an update would make any cmp
// pass).
func runScripts(t *testing.T, dir string, update bool) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	// The example consumer is built on the first `ordersconsumer start`,
	// once for all the scripts of dir: a tier or a -run without such a
	// script never builds it.
	consumer := &lazyExecutable{dir: filepath.Join(wd, "..", ".."), pkg: "./examples/orders/consumer"}
	testscript.Run(t, testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		UpdateScripts:       update,
		Cmds:                scriptCmds(),
		Condition:           scriptCondition,
		Setup: func(env *testscript.Env) error {
			// Examples are shared with the scripts through $EXAMPLES.
			env.Setenv("EXAMPLES", filepath.Join(wd, "..", "..", "examples"))
			env.Values[ordersConsumerKey{}] = &ordersConsumer{exe: consumer}
			return nil
		},
	})
}

// scriptCmds are the commands of every script beyond testscript's own,
// documented where each is defined:
//
//	kafka-broker, kafka-topic                       an embedded broker, a topic's records
//	srfake, urlfrom                                 a schema registry
//	dlqbroker, dlqseed, dlqheaders, deadletteragain dead letters
//	topiccount, waitcommit, produceevents           records and groups
//	ordersconsumer, waitconsumed, ordersshipped     the example consumer
//	doc-output, doc-exit                            the doc samples' checks
func scriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	cmds := map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"kafka-topic":  kafkaTopicCmd,
		"kafka-broker": kafkaBrokerCmd,
		"doc-output":   docOutput,
		"doc-exit":     docExitCmd,
	}
	for _, m := range []map[string]func(*testscript.TestScript, bool, []string){registryScriptCmds(), dlqScriptCmds()} {
		for k, v := range m {
			if cmds[k] != nil {
				panic("two script commands named " + k)
			}
			cmds[k] = v
		}
	}
	return cmds
}

// scriptCondition answers the scripts' own conditions. sighup_ignored: the
// tests were started with SIGHUP ignored (under nohup, say), which evtool
// inherits and, by design, leaves alone, so a script cannot stop it with
// SIGHUP.
func scriptCondition(cond string) (bool, error) {
	switch cond {
	case "sighup_ignored":
		return signal.Ignored(syscall.SIGHUP), nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

// TestScriptDirs: the walk finds the root and every directory of scripts,
// not a directory without any.
func TestScriptDirs(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"a.txtar", "sub/b.txtar", "sub/deeper/c.txtar", "sub/deeper/d.txtar", "fixtures/e.json", "empty/.keep", "txt/f.txt", "z.txtar"} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dirs, err := scriptDirs(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range dirs {
		rel, _ := filepath.Rel(root, d)
		got = append(got, filepath.ToSlash(rel))
	}
	if want := ".,sub,sub/deeper,txt"; strings.Join(got, ",") != want {
		t.Errorf("script dirs %q, want %s", got, want)
	}
}
