package exampletest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/evtool/evtool/catalog"
)

// Event is one event of a generated events.jsonl, before it is written.
type Event struct {
	At      time.Time
	Type    string
	Version int
	Subject string
	Data    map[string]any // in the JSON form of the version's schema
}

// EventsFile writes the lines of an example's events.jsonl: the events in
// the order of their times (stable), each with a UUIDv4 id drawn from rng,
// the source, and its data in the binary encoding contentType names, in
// data_base64.
func EventsFile(t testing.TB, cat *catalog.Catalog, rng *rand.Rand, source, contentType string, evs []Event) []byte {
	t.Helper()
	slices.SortStableFunc(evs, func(a, b Event) int { return a.At.Compare(b.At) })
	var out bytes.Buffer
	for _, e := range evs {
		ver := cat.Lookup(e.Type).Version(e.Version)
		bin, err := ver.Compiled.EncodeValue(e.Data, contentType)
		if err != nil {
			t.Fatalf("%s v%d %v: %v", e.Type, e.Version, e.Data, err)
		}
		var id [16]byte
		for i := range id {
			id[i] = byte(rng.Uint32())
		}
		id[6], id[8] = id[6]&0x0f|0x40, id[8]&0x3f|0x80
		line, err := json.Marshal(map[string]any{
			"specversion": "1.0", "id": fmt.Sprintf("%x-%x-%x-%x-%x", id[0:4], id[4:6], id[6:8], id[8:10], id[10:]),
			"source": source, "type": e.Type, "subject": e.Subject, "time": e.At.Format(time.RFC3339),
			"datacontenttype": contentType, "dataschema": cat.DataSchema(e.Type, e.Version),
			"data_base64": base64.StdEncoding.EncodeToString(bin),
		})
		if err != nil {
			t.Fatal(err)
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// Golden fails the test when the file at path does not hold got, after
// writing got there when update is set; regenerate is the command that
// does.
func Golden(t testing.TB, path string, got []byte, update bool, regenerate string) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is not what the generator writes: run %s", path, regenerate)
	}
}
