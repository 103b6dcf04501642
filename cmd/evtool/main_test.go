package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
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

// TestScripts runs the CLI testscripts in testdata/script: each .txtar is a
// shell-like session of evtool commands with expected output and exit codes.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "../../testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       *update,
		Cmds:                kafkaScriptCmds,
		Condition:           scriptCondition,
		Setup: func(env *testscript.Env) error {
			// Examples are shared with the scripts through $EXAMPLES.
			wd, err := os.Getwd()
			if err != nil {
				return err
			}
			env.Setenv("EXAMPLES", wd+"/../../examples")
			return nil
		},
	})
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
