package avrocompat

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/format/avro"
)

type apacheCase struct {
	Test           string
	Reader, Writer json.RawMessage
	Compatible     bool
}

func apacheCases(t *testing.T) []apacheCase {
	data, err := os.ReadFile("testdata/apache/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []apacheCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

// javaWrong lists the Apache cases where evtool's verdict differs from
// Java's on purpose, with the reason; the witness must show the break.
var javaWrong = map[int]string{}

// TestApacheCases reproduces the verdicts of Apache Avro's own
// compatibility tests (testdata/apache/SOURCE).
func TestApacheCases(t *testing.T) {
	for i, c := range apacheCases(t) {
		t.Run(fmt.Sprintf("%d_%s", i, c.Test), func(t *testing.T) {
			writer, reader := mustParse(t, "writer.avsc", string(c.Writer)), mustParse(t, "reader.avsc", string(c.Reader))
			fs := Compare(writer, reader, engine.Backward, engine.Options{})
			got := Compatible(fs)
			if reason, ok := javaWrong[i]; ok {
				if got == c.Compatible {
					t.Errorf("listed as a difference from Java (%s), but the verdicts agree", reason)
				}
				return
			}
			if got != c.Compatible {
				t.Errorf("compatible = %v, Java says %v\nwriter %s\nreader %s", got, c.Compatible, c.Writer, c.Reader)
				for _, f := range fs {
					t.Logf("  %s: %s", f.Rule, f.Message)
				}
			}
		})
	}
}

// TestBeyondJava records where Java's verdict is wrong: Java's
// SchemaCompatibility (like the library's check, which resolves physical
// types) ignores logical types and passes these pairs, and the witness
// shows a datum that changes meaning or that a reader applying the
// logical type fails on.
func TestBeyondJava(t *testing.T) {
	for _, tt := range ruleTests {
		old, new := mustParse(t, "v1.avsc", tt.old), mustParse(t, "v2.avsc", tt.new)
		for _, f := range Compare(old, new, engine.Backward, engine.Options{}) {
			if !logicalRules[f.Rule] {
				continue
			}
			if err := avro.LibraryCompatible(old, new); err != nil {
				continue // the base types break too; Java agrees it is a break
			}
			cx := f.Counterexample
			if cx == nil || (cx.ReaderError == "" && cx.Written == cx.ReadAs) {
				t.Errorf("%s: %s has no meaning-changing witness", tt.name, f.Rule)
				continue
			}
			t.Logf("%s: Java: compatible; evtool: %s, %s", tt.name, f.Rule, cx.Summary())
		}
	}
}
