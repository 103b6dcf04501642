package replay

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/catalog/catalogtest"
	"github.com/evtool/evtool/format"
)

// TestReplayFramesJSONWhenConfigured: with kafka.framing: confluent in
// evtool.yaml and registry ids, replay writes an event of a JSON Schema
// type Confluent-framed under its version's id (the fast path hands such
// events to the slow one); without the setting it writes plain JSON.
func TestReplayFramesJSONWhenConfigured(t *testing.T) {
	data, err := os.ReadFile(examplesDir + "/events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	first := []byte(strings.SplitN(string(data), "\n", 2)[0])
	for _, framed := range []bool{false, true} {
		dir := t.TempDir()
		if err := os.CopyFS(filepath.Join(dir, "schemas"), os.DirFS(filepath.Join(examplesDir, "schemas"))); err != nil {
			t.Fatal(err)
		}
		conf, err := os.ReadFile(filepath.Join(examplesDir, "evtool.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if framed {
			conf = append(conf, "kafka: {framing: confluent}\n"...)
		}
		if err := os.WriteFile(filepath.Join(dir, "evtool.yaml"), conf, 0o644); err != nil {
			t.Fatal(err)
		}
		cat, err := catalog.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		catalogtest.WriteSchemaIDs(t, cat, catalogtest.Numbered(cat))
		sc := writeScenario(t, "catalog: "+dir+"\nevents: {file: "+examplesDir+"/events.jsonl}\nconsumer: {run: [x], state: {http: \"http://x\"}}\n")
		h, err := NewHarness(sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		slow := h.slowRecord(context.Background(), rawEvent{Raw: first, Line: 1}, "t")
		if slow.err != nil {
			t.Fatal(slow.err)
		}
		_, _, fastErr := h.fastRecord(first, "t", true)
		id, payload, uerr := format.Unframe(slow.rec.Value)
		if framed {
			v1 := cat.Lookup("com.example.order.placed").Version(1)
			want := uint32(0)
			for i, ty := range cat.Types {
				if ty.Name == v1.Type {
					want = uint32(100 + 10*i + 1)
				}
			}
			if uerr != nil || id != want || payload[0] != '{' {
				t.Errorf("framed: value % x (id %d, want %d, %v)", slow.rec.Value[:min(8, len(slow.rec.Value))], id, want, uerr)
			}
			if fastErr == nil {
				t.Error("the fast path wrote a record that must be framed")
			}
		} else if uerr == nil || slow.rec.Value[0] != '{' {
			t.Errorf("unframed: value starts % x", slow.rec.Value[:min(8, len(slow.rec.Value))])
		}
		h.Close()
	}
}
