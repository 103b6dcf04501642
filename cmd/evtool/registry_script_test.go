package main

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"

	"github.com/evtool/evtool/internal/waitfor"
)

// scriptCmds are the testscript commands the registry scripts use. They
// can be merged into TestScripts' Params.Cmds; until then
// TestRegistryScripts runs the scripts in testdata/script/registry.
//
//	srfake [-auth VALUE] [-avro SUBJECT]
//	    start franz-go's fake schema registry for the rest of the script and
//	    set $SRFAKE_URL; -auth makes it require that Authorization header;
//	    -avro seeds an Avro subject (which JSON tools must skip).
//	urlfrom VAR FILE
//	    wait (up to 30s) for FILE, written by `evtool registry serve
//	    --url-file`, and set $VAR to the URL in it.
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"srfake": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg {
			ts.Fatalf("unsupported: ! srfake")
		}
		var opts []srfake.Option
		var avro []string
		for i := 0; i < len(args); i++ {
			switch {
			case args[i] == "-auth" && i+1 < len(args):
				opts = append(opts, srfake.WithAuth(args[i+1]))
				i++
			case args[i] == "-avro" && i+1 < len(args):
				avro = append(avro, args[i+1])
				i++
			default:
				ts.Fatalf("usage: srfake [-auth VALUE] [-avro SUBJECT]")
			}
		}
		reg := srfake.New(opts...)
		for i, s := range avro {
			reg.SeedSchema(s, 1, 1000+i, sr.Schema{Schema: `{"type":"record","name":"r","fields":[]}`, Type: sr.TypeAvro})
		}
		ts.Defer(reg.Close)
		ts.Setenv("SRFAKE_URL", reg.URL())
	},
	"urlfrom": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: urlfrom VAR FILE")
		}
		p := ts.MkAbs(args[1])
		// registry serve writes the file atomically once it listens.
		var url string
		if !waitfor.Condition(30*time.Second, func() bool {
			data, err := os.ReadFile(p)
			url = strings.TrimSpace(string(data))
			return err == nil && url != ""
		}) {
			ts.Fatalf("%s did not appear", args[1])
		}
		ts.Setenv(args[0], url)
	},
}

// TestRegistryScripts runs the scripts that need a live registry (srfake
// or `evtool registry serve`).
func TestRegistryScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "../../testdata/script/registry",
		RequireExplicitExec: true,
		Cmds:                scriptCmds,
		Setup: func(env *testscript.Env) error {
			wd, err := os.Getwd()
			if err != nil {
				return err
			}
			env.Setenv("EXAMPLES", wd+"/../../examples")
			return nil
		},
	})
}
