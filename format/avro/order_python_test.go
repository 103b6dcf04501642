package avro

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/evtool/evtool/internal/pythontest"
)

// TestOrderedMapsReadByApacheAvro: the map entries Encode reorders (one
// block, keys sorted) are read by Apache Avro's Python implementation
// as the datum that was encoded, nested maps and maps in arrays included.
func TestOrderedMapsReadByApacheAvro(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts Python (about a second of CPU); TestEncodeMapOrder stands for the order in the short tier")
	}
	py := pythontest.With(t, "apt-get install python3-avro", "avro.schema", "avro.io")
	src := `{"type":"record","name":"R","fields":[{"name":"m","type":{"type":"map","values":{"type":"map","values":"long"}}},{"name":"a","type":{"type":"array","items":{"type":"map","values":"string"}}}]}`
	s, err := Load(fstest.MapFS{"v1.avsc": {Data: []byte(src)}}, "v1.avsc")
	if err != nil {
		t.Fatal(err)
	}
	datum := map[string]any{
		"m": map[string]any{"zeta": map[string]any{"b": int64(2), "a": int64(-1)}, "alpha": map[string]any{}, "mid": map[string]any{"x": int64(300)}},
		"a": []any{map[string]any{"q": "1", "p": "2", "é": "3"}, map[string]any{}},
	}
	data, err := s.Encode(datum)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "v1.avsc"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "datum.bin"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	script := `import avro.schema, avro.io, io, json, sys
s = avro.schema.parse(open(sys.argv[1]).read())
d = avro.io.DatumReader(s).read(avro.io.BinaryDecoder(io.BytesIO(open(sys.argv[2], 'rb').read())))
print(json.dumps(d, sort_keys=True, ensure_ascii=False))
`
	out, err := exec.Command(py, "-c", script, filepath.Join(dir, "v1.avsc"), filepath.Join(dir, "datum.bin")).CombinedOutput()
	if err != nil {
		t.Fatalf("python avro: %v\n%s", err, out)
	}
	var got any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	// encoding/json sorts keys: both sides in one spelling.
	g, _ := json.Marshal(got)
	want, _ := json.Marshal(datum)
	if !bytes.Equal(g, want) {
		t.Errorf("Apache Avro read %s, want %s", g, want)
	}
}
