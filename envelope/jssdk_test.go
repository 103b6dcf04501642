package envelope

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// jsBinaryCapture is what testdata/cloudevents-js/capture.js prints: one
// event in the CloudEvents JavaScript SDK's Kafka binary mode.
type jsBinaryCapture struct {
	Headers map[string]string `json:"headers"`
	Value   string            `json:"value"`
}

func (c jsBinaryCapture) record() *kgo.Record {
	r := &kgo.Record{Value: []byte(c.Value)}
	for k, v := range c.Headers {
		r.Headers = append(r.Headers, kgo.RecordHeader{Key: k, Value: []byte(v)})
	}
	return r
}

// TestCloudEventsJSBinary: the JS SDK writes content-type and
// ce_datacontenttype with one value; FromRecord reads the event.
func TestCloudEventsJSBinary(t *testing.T) {
	dir := filepath.Join("testdata", "cloudevents-js")
	captures := map[string][]byte{}
	b, err := os.ReadFile(filepath.Join(dir, "binary.json"))
	if err != nil {
		t.Fatal(err)
	}
	captures["committed capture"] = b
	if live, ok := runCloudEventsJS(t, dir); ok {
		captures["live SDK"] = live
	}
	for name, b := range captures {
		t.Run(name, func(t *testing.T) {
			var c jsBinaryCapture
			if err := json.Unmarshal(b, &c); err != nil {
				t.Fatal(err)
			}
			if c.Headers["content-type"] == "" || c.Headers["ce_datacontenttype"] == "" {
				t.Fatalf("capture lacks the header pair this test is about: %v", c.Headers)
			}
			d, fs, err := FromRecord(c.record())
			if err != nil {
				t.Fatal(err)
			}
			if len(fs) > 0 {
				t.Fatalf("findings: %v", fs)
			}
			if got := d.Event.DataContentType(); got != "application/json" {
				t.Errorf("datacontenttype = %q", got)
			}
			if got := string(d.RawData); got != `{"orderId":"A-1","total":42}` {
				t.Errorf("data = %s", got)
			}
		})
	}
}

// runCloudEventsJS runs capture.js when node and the cloudevents package
// are installed; it never installs anything.
func runCloudEventsJS(t *testing.T, dir string) ([]byte, bool) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Log("node not installed: only the committed capture is read")
		return nil, false
	}
	probe := exec.Command(node, "-e", `require.resolve("cloudevents")`)
	probe.Dir = dir
	if err := probe.Run(); err != nil {
		t.Log("npm package cloudevents not installed (set NODE_PATH): only the committed capture is read")
		return nil, false
	}
	cmd := exec.Command(node, "capture.js")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node capture.js: %v", err)
	}
	return out, true
}
