package kafka

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// TestApiVersionsEveryVersion: the embedded broker answers ApiVersions at
// each version a client may send with Produce from 0 and every other key
// as kfake serves it; above its highest version it downgrades (v0,
// UNSUPPORTED_VERSION), as a broker does.
func TestApiVersionsEveryVersion(t *testing.T) {
	b, err := StartBroker(BrokerConfig{Partitions: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for v := int16(0); v <= 6; v++ {
		req := kmsg.NewPtrApiVersionsRequest()
		req.Version = v
		req.ClientSoftwareName, req.ClientSoftwareVersion = "evtool-test", "1"
		resp := rawApiVersions(t, b.Addrs()[0], req)
		if v > 5 {
			if resp.ErrorCode != kerr.UnsupportedVersion.Code {
				t.Errorf("v%d: error code %d, want UNSUPPORTED_VERSION", v, resp.ErrorCode)
			}
			continue
		}
		if resp.ErrorCode != 0 {
			t.Fatalf("v%d: error code %d", v, resp.ErrorCode)
		}
		var produce, fetch *kmsg.ApiVersionsResponseApiKey
		for i := range resp.ApiKeys {
			switch resp.ApiKeys[i].ApiKey {
			case 0:
				produce = &resp.ApiKeys[i]
			case 1:
				fetch = &resp.ApiKeys[i]
			}
		}
		if produce == nil || produce.MinVersion != 0 || produce.MaxVersion < 3 {
			t.Errorf("v%d: Produce advertised as %+v, want 0..>=3", v, produce)
		}
		if fetch == nil || fetch.MaxVersion < 4 {
			t.Errorf("v%d: Fetch advertised as %+v", v, fetch)
		}
	}
}

// rawApiVersions sends one ApiVersions request on a fresh connection and
// reads its answer at the version the broker gave it.
func rawApiVersions(t *testing.T, addr string, req *kmsg.ApiVersionsRequest) *kmsg.ApiVersionsResponse {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	frame := kmsg.NewRequestFormatter(kmsg.FormatterClientID("evtool-test")).AppendRequest(nil, req, 1)
	if _, err := conn.Write(frame); err != nil {
		t.Fatal(err)
	}
	var size [4]byte
	if _, err := io.ReadFull(conn, size[:]); err != nil {
		t.Fatalf("v%d: read the answer: %v", req.Version, err)
	}
	body := make([]byte, binary.BigEndian.Uint32(size[:]))
	if _, err := io.ReadFull(conn, body); err != nil {
		t.Fatal(err)
	}
	// The correlation id; ApiVersions answers have no tagged header.
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.Version = req.Version
	if err := resp.ReadFrom(body[4:]); err != nil || resp.ErrorCode == kerr.UnsupportedVersion.Code {
		resp = kmsg.NewPtrApiVersionsResponse() // a downgrade is a v0 answer
		if err := resp.ReadFrom(body[4:]); err != nil {
			t.Fatalf("v%d: %v", req.Version, err)
		}
	}
	return resp
}

// TestOldProducerRefused: advertising Produce 0 invites clients limited to
// message sets (Kafka 0.10 and older) to send Produce 0-2, which kfake does
// not read; they are told UNSUPPORTED_VERSION at once rather than having
// their connection dropped until they time out. Record batches (0.11 on)
// are produced.
func TestOldProducerRefused(t *testing.T) {
	b, err := StartBroker(BrokerConfig{Partitions: 1, Topics: []string{"t"}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	cases := []struct {
		versions *kversion.Versions
		refused  bool
	}{
		{kversion.V0_8_0(), true},
		{kversion.V0_10_0(), true},
		{kversion.V0_10_2(), true},
		{kversion.V0_11_0(), false},
		{nil, false},
	}
	for _, c := range cases {
		name := "latest"
		opts := []kgo.Opt{kgo.SeedBrokers(b.Addrs()...)}
		if c.versions != nil {
			name = c.versions.VersionGuess()
			opts = append(opts, kgo.MaxVersions(c.versions))
		}
		t.Run(name, func(t *testing.T) {
			cl, err := kgo.NewClient(opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			// A guard against the retry loop, not a timing assertion.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			err = cl.ProduceSync(ctx, &kgo.Record{Topic: "t", Value: []byte("x")}).FirstErr()
			switch {
			case c.refused && !errors.Is(err, kerr.UnsupportedVersion):
				t.Errorf("produce: %v, want UNSUPPORTED_VERSION", err)
			case !c.refused && err != nil:
				t.Errorf("produce: %v", err)
			}
		})
	}
}
