package replay

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/kafka"
)

// producedTopic produces n example events as the baseline run would, with
// the scenario's kafka section extra (say "compression: gzip") and the
// options' compression, into the embedded broker, and returns the brokers
// and the topic; nothing consumes them.
func producedTopic(t *testing.T, n int, kafkaYAML string, opts Options) ([]string, string) {
	t.Helper()
	text := strings.Replace(scenarioText(t, "correct", testEvents(t, n), ""), "kafka: {partitions: 3}", "kafka: {partitions: 3, "+kafkaYAML+"}", 1)
	opts.Keep = true
	h, err := NewHarness(writeScenario(t, text), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := h.Validate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := h.Produce(ctx, RunSpec{Name: "baseline"})
	if err != nil {
		t.Fatal(err)
	}
	return h.Brokers(), res.Topic
}

// TestProducedCompression checks the codec of the batches the harness
// produces: none by default (franz-go's own default is Snappy, which
// kafkajs cannot read), else kafka.compression, else --compression.
func TestProducedCompression(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: many runs through kfake and child consumers (seconds to minutes on a loaded machine); TestReplayCorrectPasses stands for replay in the short tier")
	}
	for _, tc := range []struct {
		name, kafkaYAML, option string
		want                    uint8 // Kafka's attribute: 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd
	}{
		{"default", "", "", 0},
		{"scenario none", "compression: none", "", 0},
		{"scenario gzip", "compression: gzip", "", 1},
		{"scenario snappy", "compression: snappy", "", 2},
		{"scenario lz4", "compression: lz4", "", 3},
		{"scenario zstd", "compression: zstd", "", 4},
		{"option over scenario", "compression: snappy", "zstd", 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			brokers, topic := producedTopic(t, 20, tc.kafkaYAML, Options{Client: kafka.ClientConfig{Compression: tc.option}})
			for _, r := range consumeTopic(t, brokers, topic, 20) {
				if got := r.Attrs.CompressionType(); got != tc.want {
					t.Fatalf("record %d@%d: codec %d, want %d", r.Partition, r.Offset, got, tc.want)
				}
			}
		})
	}
}

func consumeTopic(t *testing.T, brokers []string, topic string, n int) []*kgo.Record {
	t.Helper()
	opts, err := kafka.ClientConfig{Brokers: brokers}.Options()
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(append(opts, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out []*kgo.Record
	for len(out) < n {
		fs := cl.PollFetches(ctx)
		if err := fs.Err0(); err != nil {
			t.Fatalf("consumed %d of %d records: %v", len(out), n, err)
		}
		out = append(out, fs.Records()...)
	}
	return out
}

// TestInteropKafkajs consumes what evtool replay produces with kafkajs, a
// client without a Snappy codec. It needs node and kafkajs installed by
// testdata/kafkajs/install.sh (EVTOOL_KAFKAJS_DIR: its node_modules), and
// skips without them: the test never downloads.
func TestInteropKafkajs(t *testing.T) {
	dir := os.Getenv("EVTOOL_KAFKAJS_DIR")
	if dir == "" {
		t.Skip("EVTOOL_KAFKAJS_DIR is not set (install kafkajs with replay/testdata/kafkajs/install.sh)")
	}
	if _, err := os.Stat(filepath.Join(dir, "kafkajs", "package.json")); err != nil {
		t.Skipf("no kafkajs in EVTOOL_KAFKAJS_DIR %s: %v", dir, err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	script, err := filepath.Abs("testdata/kafkajs/consume.js")
	if err != nil {
		t.Fatal(err)
	}
	const n = 30
	for _, tc := range []struct {
		compression string
		ok          bool
	}{
		{"", true}, {"gzip", true},
		// kafkajs has no Snappy codec: why none is the default.
		{"snappy", false},
	} {
		t.Run("compression="+tc.compression, func(t *testing.T) {
			brokers, topic := producedTopic(t, n, "", Options{Client: kafka.ClientConfig{Compression: tc.compression}})
			cmd := exec.Command(node, script, strings.Join(brokers, ","), topic, strconv.Itoa(n))
			cmd.Env = append(os.Environ(), "EVTOOL_KAFKAJS_DIR="+dir)
			out, err := cmd.CombinedOutput()
			if tc.ok && err != nil {
				t.Fatalf("kafkajs could not read the records: %v\n%s", err, out)
			}
			if !tc.ok && (err == nil || !strings.Contains(string(out), "Snappy")) {
				t.Fatalf("kafkajs read Snappy batches, or failed for another reason: %v\n%s", err, out)
			}
		})
	}
}

// TestInteropKcat consumes what evtool replay produces, with every codec,
// with kcat (librdkafka); skips when kcat is not installed.
func TestInteropKcat(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: many runs through kfake and child consumers (seconds to minutes on a loaded machine); TestReplayCorrectPasses stands for replay in the short tier")
	}
	kcat, err := exec.LookPath("kcat")
	if err != nil {
		t.Skip("kcat is not installed (Debian: apt-get install kcat)")
	}
	const n = 30
	for _, c := range kafka.Compressions {
		t.Run(c, func(t *testing.T) {
			brokers, topic := producedTopic(t, n, "compression: "+c, Options{})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			// -C consume, -e exit at the end, -q quiet; one line per record:
			// its ce_id header and its value's length.
			out, err := exec.CommandContext(ctx, kcat, "-C", "-b", strings.Join(brokers, ","), "-t", topic, "-o", "beginning", "-e", "-q",
				"-f", "%h %S\n").CombinedOutput()
			if err != nil {
				t.Fatalf("kcat: %v\n%s", err, out)
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			if len(lines) != n {
				t.Fatalf("kcat read %d records, want %d:\n%s", len(lines), n, out)
			}
			for _, l := range lines {
				if !strings.Contains(l, "ce_id=") {
					t.Fatalf("record without ce_id: %q", l)
				}
			}
		})
	}
}
