package protocompat

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/evtool/evtool/compat/engine"
	pb "github.com/evtool/evtool/format/protobuf"
	"github.com/evtool/evtool/report"
)

var update = flag.Bool("update", false, "rewrite golden files")

type confluentCase struct {
	Description          string   `json:"description"`
	Original             string   `json:"original_schema"`
	Update               string   `json:"update_schema"`
	Changes              []string `json:"changes"`
	Compatible           bool     `json:"compatible"`
	OriginalDependencies []struct {
		Name, Dependency string
	} `json:"original_dependencies"`
	UpdateDependencies []struct {
		Name, Dependency string
	} `json:"update_dependencies"`
}

func verdict(fs []report.Finding) string {
	if Compatible(fs) {
		return "compatible"
	}
	return "incompatible " + strings.Join(rulesOf(fs), ",")
}

func firstWitness(fs []report.Finding) string {
	for _, f := range fs {
		if f.Severity == report.SeverityError && len(f.Counterexample) > 0 {
			var w struct {
				Writer json.RawMessage
				Hex    string
			}
			if err := json.Unmarshal(f.Counterexample, &w); err != nil {
				return err.Error()
			}
			return fmt.Sprintf("%s: writer %s hex %s; %s", f.Rule, short(string(w.Writer)), short(w.Hex), short(f.Message[strings.Index(f.Message, "; e.g. ")+7:]))
		}
	}
	return ""
}

// TestConfluentDiffCases runs Confluent Schema Registry's Protobuf diff
// cases (BACKWARD: the update reads data the original wrote) through
// evtool in both profiles and records, in verdicts.golden, every case
// where the verdicts differ with the counterexample that shows who is
// right. The event message is the original's first message, looked up by
// name in the update (as compat diff does).
func TestConfluentDiffCases(t *testing.T) {
	b, err := os.ReadFile("testdata/confluent/diff-schema-examples.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []confluentCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	agree := 0
	for i, c := range cases {
		ofs := fstest.MapFS{"original.proto": {Data: []byte(c.Original)}}
		for _, d := range c.OriginalDependencies {
			ofs[d.Name] = &fstest.MapFile{Data: []byte(d.Dependency)}
		}
		ufs := fstest.MapFS{"update.proto": {Data: []byte(c.Update)}}
		for _, d := range c.UpdateDependencies {
			ufs[d.Name] = &fstest.MapFile{Data: []byte(d.Dependency)}
		}
		old, err := pb.Load(ofs, "original.proto", "")
		if err != nil {
			t.Fatalf("case %d %q: original: %v", i, c.Description, err)
		}
		new, err := pb.Load(ufs, "update.proto", string(old.Message.FullName()))
		if err != nil {
			fmt.Fprintf(&out, "%02d %s\n   confluent: %v\n   evtool: not comparable (%v)\n", i, c.Description, c.Compatible, err)
			continue
		}
		wire := Compare(old, new, engine.Backward, engine.Options{Profile: ProfileWire})
		wj := Compare(old, new, engine.Backward, engine.Options{Profile: ProfileWireJSON})
		checkWitnessed(t, wire)
		checkWitnessed(t, wj)
		checkReplays(t, old, new, engine.Backward, wire)
		checkReplays(t, old, new, engine.Backward, wj)
		if Compatible(wire) == c.Compatible {
			agree++
		}
		mark := "same"
		if Compatible(wire) != c.Compatible {
			mark = "DIFFERS (wire)"
		}
		fmt.Fprintf(&out, "%02d %s [%s]\n   confluent: compatible=%v %v\n   evtool wire: %s\n   evtool wire-json: %s\n", i, c.Description, mark, c.Compatible, c.Changes, verdict(wire), verdict(wj))
		if w := firstWitness(wire); w != "" && c.Compatible {
			fmt.Fprintf(&out, "   witness: %s\n", w)
		} else if w := firstWitness(wj); w != "" && c.Compatible {
			fmt.Fprintf(&out, "   witness (json): %s\n", w)
		}
	}
	fmt.Fprintf(&out, "\n%d of %d cases: evtool's wire verdict agrees with Confluent's\n", agree, len(cases))
	golden(t, "testdata/confluent/verdicts.golden", out.Bytes())
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs (run with -update and review the diff):\n%s", path, got)
	}
}

func short(s string) string {
	if len(s) > 160 {
		return s[:160] + "…"
	}
	return s
}
