package dlq

import (
	"encoding/binary"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kgo"
)

func be32(n int32) string {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(n))
	return string(b[:])
}

func be64(n int64) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(n))
	return string(b[:])
}

func rec(kv ...string) *kgo.Record {
	r := &kgo.Record{Topic: "orders.dlq", Partition: 2, Offset: 7}
	for i := 0; i+1 < len(kv); i += 2 {
		r.Headers = append(r.Headers, kgo.RecordHeader{Key: kv[i], Value: []byte(kv[i+1])})
	}
	return r
}

func TestDecode(t *testing.T) {
	at := time.UnixMilli(1764583200123).UTC()
	tests := []struct {
		name string
		rec  *kgo.Record
		want Letter
	}{
		{"none", rec("ce_id", "1"), Letter{Convention: ConventionNone}},
		{"none with an error header", rec("ce_id", "1", "error", "boom", "source-offset", "3"), Letter{Convention: ConventionNone, Error: "boom"}},
		{"evtool", rec("dlq.error", "schema says no", "dlq.error.kind", "invalid", "dlq.source.topic", "orders", "dlq.source.partition", "1", "dlq.source.offset", "17"),
			Letter{Convention: ConventionEvtool, Origin: &Origin{Topic: "orders", Partition: 1, Offset: 17}, OriginTopic: "orders", ErrorClass: "invalid", Error: "schema says no"}},
		{"spring binary", rec("kafka_dlt-original-topic", "orders", "kafka_dlt-original-partition", be32(3), "kafka_dlt-original-offset", be64(1<<40), "kafka_dlt-original-timestamp", be64(at.UnixMilli()),
			"kafka_dlt-exception-fqcn", "org.springframework.kafka.listener.ListenerExecutionFailedException", "kafka_dlt-exception-message", "Listener failed"),
			Letter{Convention: ConventionSpring, Origin: &Origin{Topic: "orders", Partition: 3, Offset: 1 << 40, Timestamp: at}, OriginTopic: "orders", ErrorClass: "org.springframework.kafka.listener.ListenerExecutionFailedException", Error: "Listener failed"}},
		{"spring decimal", rec("kafka_dlt-original-topic", "orders", "kafka_dlt-original-partition", "3", "kafka_dlt-original-offset", "99"),
			Letter{Convention: ConventionSpring, Origin: &Origin{Topic: "orders", Partition: 3, Offset: 99}, OriginTopic: "orders"}},
		{"spring key exception", rec("kafka_dlt-original-topic", "orders", "kafka_dlt-key-exception-fqcn", "org.apache.kafka.common.errors.SerializationException", "kafka_dlt-key-exception-message", "bad key"),
			Letter{Convention: ConventionSpring, OriginTopic: "orders", ErrorClass: "org.apache.kafka.common.errors.SerializationException", Error: "bad key"}},
		{"spring no timestamp", rec("kafka_dlt-original-topic", "orders", "kafka_dlt-original-partition", be32(0), "kafka_dlt-original-offset", be64(0), "kafka_dlt-original-timestamp", be64(-1)),
			Letter{Convention: ConventionSpring, Origin: &Origin{Topic: "orders"}, OriginTopic: "orders"}},
		{"connect", rec("__connect.errors.topic", "orders", "__connect.errors.partition", "0", "__connect.errors.offset", "12", "__connect.errors.exception.class.name", "org.apache.kafka.connect.errors.DataException", "__connect.errors.exception.message", "Converting byte[] to Kafka Connect data failed"),
			Letter{Convention: ConventionConnect, Origin: &Origin{Topic: "orders", Offset: 12}, OriginTopic: "orders", ErrorClass: "org.apache.kafka.connect.errors.DataException", Error: "Converting byte[] to Kafka Connect data failed"}},
		{"streams", rec("__streams.errors.exception", "org.apache.kafka.common.errors.SerializationException: Size of data received", "__streams.errors.message", "Size of data received", "__streams.errors.topic", "orders", "__streams.errors.partition", "2", "__streams.errors.offset", "5"),
			Letter{Convention: ConventionStreams, Origin: &Origin{Topic: "orders", Partition: 2, Offset: 5}, OriginTopic: "orders", ErrorClass: "org.apache.kafka.common.errors.SerializationException", Error: "Size of data received"}},
		{"streams null message", rec("__streams.errors.exception", "java.lang.NullPointerException", "__streams.errors.message", "", "__streams.errors.topic", "orders"),
			Letter{Convention: ConventionStreams, OriginTopic: "orders", ErrorClass: "java.lang.NullPointerException"}},
		// ProcessingExceptionHandler on a record a punctuator made: it was
		// consumed from nowhere, Streams writes a null topic and -1.
		{"streams punctuation", rec("__streams.errors.exception", "java.lang.IllegalStateException: no", "__streams.errors.topic", "", "__streams.errors.partition", "-1", "__streams.errors.offset", "-1"),
			Letter{Convention: ConventionStreams, ErrorClass: "java.lang.IllegalStateException", Error: "no"}},
		{"redrive count", rec("dlq.error", "x", "evtool-redrive-count", "2"), Letter{Convention: ConventionEvtool, Error: "x", RedriveCount: 2}},
		{"last header wins", rec("dlq.source.topic", "first", "dlq.source.topic", "second"), Letter{Convention: ConventionEvtool, OriginTopic: "second"}},
		{"first convention wins", rec("__connect.errors.topic", "c", "dlq.source.topic", "e"), Letter{Convention: ConventionEvtool, OriginTopic: "e"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decode(tc.rec)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("-want +got\n%s", d)
			}
		})
	}
}

func TestDecodeMalformed(t *testing.T) {
	tests := []struct {
		name string
		rec  *kgo.Record
		want string
	}{
		{"connect binary partition", rec("__connect.errors.topic", "o", "__connect.errors.partition", be32(1)),
			`orders.dlq/2@7: header __connect.errors.partition: 0x00000001 (4 bytes): want a decimal number`},
		{"spring 3-byte offset", rec("kafka_dlt-original-topic", "o", "kafka_dlt-original-offset", "\x00\x01\x02"),
			`orders.dlq/2@7: header kafka_dlt-original-offset: 0x000102 (3 bytes): want a decimal number or a big-endian int64 (8 bytes)`},
		{"spring negative partition", rec("kafka_dlt-original-partition", be32(-2)),
			`orders.dlq/2@7: header kafka_dlt-original-partition: -2 is not a partition`},
		{"decimal partition too large", rec("dlq.source.partition", "2147483648"),
			`orders.dlq/2@7: header dlq.source.partition: 2147483648 is not a partition`},
		{"decimal offset overflow", rec("dlq.source.offset", "99999999999999999999"),
			`orders.dlq/2@7: header dlq.source.offset: "99999999999999999999": out of range`},
		{"negative decimal", rec("dlq.source.offset", "-1"),
			`orders.dlq/2@7: header dlq.source.offset: "-1" (2 bytes): want a decimal number`},
		{"empty partition", rec("__streams.errors.partition", ""),
			`orders.dlq/2@7: header __streams.errors.partition: empty value: want a decimal number`},
		{"bad topic", rec("dlq.source.topic", "orders/../x"),
			`orders.dlq/2@7: header dlq.source.topic: "orders/../x" is not a topic name: Kafka allows only a-z, A-Z, 0-9, '.', '_' and '-'`},
		{"empty topic", rec("dlq.source.topic", ""), `orders.dlq/2@7: header dlq.source.topic: empty topic name`},
		{"redrive count", rec("evtool-redrive-count", "many"), `orders.dlq/2@7: header evtool-redrive-count: "many": want a decimal count`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(tc.rec)
			if err == nil {
				t.Fatal("no error")
			}
			if err.Error() != tc.want {
				t.Errorf("got  %s\nwant %s", err, tc.want)
			}
		})
	}
}

func TestIsDLQHeader(t *testing.T) {
	for key, want := range map[string]bool{
		"dlq.error": true, "kafka_dlt-exception-fqcn": true, "__connect.errors.stage": true, "__streams.errors.stacktrace": true,
		RedriveCountHeader: true, "ce_id": false, "content-type": false, "traceparent": false, "kafka_offset": false,
		// Spring's retry topics: a redriven record that kept its attempts
		// and original timestamp would go straight to the dead-letter
		// topic on its next failure, its retries used up or timed out.
		"retry_topic-attempts": true, "retry_topic-original-timestamp": true, "retry_topic-backoff-timestamp": true,
	} {
		if got := IsDLQHeader(key); got != want {
			t.Errorf("IsDLQHeader(%q) = %v", key, got)
		}
	}
}

// FuzzDecode feeds Decode headers of every convention with arbitrary
// values: it must not panic, and what it accepts must be consistent.
func FuzzDecode(f *testing.F) {
	f.Add("kafka_dlt-original-partition", be32(3), "kafka_dlt-original-offset", be64(9))
	f.Add("dlq.source.partition", "1", "dlq.source.offset", "17")
	f.Add("__connect.errors.partition", "", "__connect.errors.topic", "a..b")
	f.Add("__streams.errors.exception", "x: y", "evtool-redrive-count", "3")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		r := rec(k1, v1, k2, v2)
		l, err := Decode(r)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "orders.dlq/2@7: header ") {
				t.Fatalf("error does not name the record and header: %v", err)
			}
			return
		}
		if o := l.Origin; o != nil && (o.Partition < 0 || o.Offset < 0 || o.Topic == "") {
			t.Fatalf("bad origin %+v", o)
		}
		if l.RedriveCount < 0 {
			t.Fatalf("negative count %d", l.RedriveCount)
		}
	})
}
