package kafka

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestKcatProducesCompressed: librdkafka (kcat, when installed) compresses
// the batches it produces to the embedded broker with the codec it is
// given. librdkafka 2.0 and older decide whether a broker reads a codec
// from the Produce versions it advertises; the broker read back shows the
// codec each batch arrived with.
//
//	apt-get install kcat
func TestKcatProducesCompressed(t *testing.T) {
	kcat, err := exec.LookPath("kcat")
	if err != nil {
		t.Skip("kcat not installed (apt-get install kcat)")
	}
	b, err := StartBroker(BrokerConfig{Partitions: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	codecs := []struct {
		name string
		want uint8 // the batch attributes' compression type
	}{{"gzip", 1}, {"snappy", 2}, {"lz4", 3}, {"zstd", 4}}
	for _, c := range codecs {
		t.Run(c.name, func(t *testing.T) {
			topic := "kcat-" + c.name
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var stderr bytes.Buffer
			cmd := exec.CommandContext(ctx, kcat, "-P", "-b", b.Addrs()[0], "-t", topic, "-z", c.name, "-X", "topic.metadata.refresh.interval.ms=100")
			// Values that compress: librdkafka sends a batch whose
			// compressed form is not smaller as it is.
			var in strings.Builder
			for i := range 3 {
				fmt.Fprintf(&in, "%d %s\n", i, strings.Repeat("compressible ", 100))
			}
			cmd.Stdin = strings.NewReader(in.String())
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("kcat -P -z %s: %v\n%s", c.name, err, stderr.String())
			}
			if strings.Contains(stderr.String(), "not compressing") {
				t.Errorf("kcat -z %s sent batches uncompressed:\n%s", c.name, stderr.String())
			}
			cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addrs()...), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			var got []*kgo.Record
			for len(got) < 3 {
				fs := cl.PollFetches(ctx)
				if ctx.Err() != nil {
					t.Fatalf("%d of 3 records read back", len(got))
				}
				got = append(got, fs.Records()...)
			}
			for _, r := range got {
				if ct := r.Attrs.CompressionType(); ct != c.want {
					t.Errorf("record %.10q arrived in a batch of compression type %d, want %d (%s)", r.Value, ct, c.want, c.name)
				}
			}
		})
	}
}
