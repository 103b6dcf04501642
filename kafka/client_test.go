package kafka

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestWaitReachable: a broker that starts late is waited for; a listener
// that never answers gives an error saying so, not the bare "context
// deadline exceeded" of the ping the wait cut short; an interrupted wait
// is the context's error, not a claim that the cluster is unreachable.
func TestWaitReachable(t *testing.T) {
	// Each case waits out seconds on its own address: they overlap.
	t.Parallel()
	free := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		return ln.Addr().String()
	}
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { silent.Close() })
	go func() {
		var held []net.Conn // accepted and never answered
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name    string
		addr    string
		ctx     context.Context
		startIn time.Duration // start a broker at addr after this
		wait    time.Duration
		want    []string // "" in want: nil error
		is      error
	}{
		{"starts late", free(), context.Background(), 1500 * time.Millisecond, 20 * time.Second, nil, nil},
		{"never answers", silent.Addr().String(), context.Background(), 0, 1500 * time.Millisecond,
			[]string{"cannot reach Kafka at " + silent.Addr().String() + " within 1.5s: no broker answered", "check the address and the TLS and SASL settings"}, nil},
		// The dial's own failure (refused, or a timeout under load) is
		// the cause given.
		{"refused", free(), context.Background(), 0, 3 * time.Second,
			[]string{"within 3s: unable to dial"}, nil},
		{"interrupted", free(), cancelled, 0, 10 * time.Second, nil, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.startIn > 0 {
				done := make(chan *Broker, 1)
				time.AfterFunc(tc.startIn, func() {
					b, err := StartBroker(BrokerConfig{Addr: tc.addr})
					if err != nil {
						t.Error(err)
					}
					done <- b
				})
				defer func() {
					if b := <-done; b != nil {
						b.Close()
					}
				}()
			}
			// Several tries: the interrupted wait once chose at random
			// between the two done contexts.
			for range 10 {
				cl, err := kgo.NewClient(kgo.SeedBrokers(tc.addr), kgo.DialTimeout(time.Second))
				if err != nil {
					t.Fatal(err)
				}
				err = WaitReachable(tc.ctx, cl, []string{tc.addr}, tc.wait)
				cl.Close()
				switch {
				case tc.is != nil:
					if !errors.Is(err, tc.is) {
						t.Fatalf("got %v, want %v", err, tc.is)
					}
				case tc.want == nil:
					if err != nil {
						t.Fatal(err)
					}
				default:
					if err == nil {
						t.Fatal("no error")
					}
					for _, w := range tc.want {
						if !strings.Contains(err.Error(), w) {
							t.Errorf("error %q lacks %q", err, w)
						}
					}
				}
				if tc.is == nil {
					break // one try says it
				}
			}
		})
	}
}
