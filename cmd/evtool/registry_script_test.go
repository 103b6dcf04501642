package main

import (
	"os"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"

	"github.com/evtool/evtool/internal/waitfor"
)

// registryScriptCmds are the script commands of a schema registry (the
// scripts of testdata/script/registry, the doc samples):
//
//	srfake [-auth VALUE] [-avro SUBJECT]
//	    start franz-go's fake schema registry for the rest of the script and
//	    set $SRFAKE_URL; -auth makes it require that Authorization header;
//	    -avro seeds an Avro subject (which JSON tools must skip).
//	urlfrom VAR FILE
//	    wait (up to 30s) for FILE, written by `evtool registry serve
//	    --url-file`, and set $VAR to the URL in it.
func registryScriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
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
}
