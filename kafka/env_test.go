package kafka

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// What evtool replay passes to a consumer (Environ) is what the consumer
// reads back (ClientConfigFromEnv).
func TestClientConfigEnvRoundTrip(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   ClientConfig
		want []string
	}{
		{"plaintext", ClientConfig{}, nil},
		{"tls by flag", ClientConfig{TLS: true}, []string{"EVTOOL_TLS=1"}},
		{"tls by CA file", ClientConfig{TLS: true, TLSCAFile: "/ca.pem", TLSServerName: "kafka"}, []string{"EVTOOL_TLS=1", "EVTOOL_TLS_CA=/ca.pem", "EVTOOL_TLS_SERVER_NAME=kafka"}},
		{"mTLS, insecure", ClientConfig{TLS: true, TLSCertFile: "/c.pem", TLSKeyFile: "/k.pem", TLSInsecure: true}, []string{"EVTOOL_TLS=1", "EVTOOL_TLS_CERT=/c.pem", "EVTOOL_TLS_KEY=/k.pem", "EVTOOL_TLS_INSECURE=1"}},
		{"scram", ClientConfig{SASLMechanism: "SCRAM-SHA-512", SASLUser: "qa", SASLPassword: "p=w"}, []string{"EVTOOL_SASL_MECHANISM=SCRAM-SHA-512", "EVTOOL_SASL_USER=qa", "EVTOOL_SASL_PASSWORD=p=w"}},
		{"heartbeat", ClientConfig{HeartbeatInterval: 1500 * time.Millisecond}, []string{"EVTOOL_HEARTBEAT_INTERVAL=1.5s"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := tt.in.Environ()
			if !reflect.DeepEqual(env, tt.want) {
				t.Fatalf("Environ = %q, want %q", env, tt.want)
			}
			vars := map[string]string{}
			for _, kv := range env {
				k, v, _ := strings.Cut(kv, "=")
				vars[k] = v
			}
			back := ClientConfigFromEnv([]string{"b:9092"}, func(k string) string { return vars[k] })
			want := tt.in
			want.Brokers = []string{"b:9092"}
			if !reflect.DeepEqual(back, want) {
				t.Fatalf("read back %+v, want %+v", back, want)
			}
		})
	}
}

// A heartbeat interval that is not a positive duration, or is longer than
// franz-go's session timeout (which kgo.NewClient refuses, for producers
// too, without naming the variable), is an error of Options naming the
// variable, not a silent default.
func TestClientConfigFromEnvBadHeartbeat(t *testing.T) {
	for _, v := range []string{"20", "soon", "0s", "-1s", "1m"} {
		t.Run(v, func(t *testing.T) {
			cfg := ClientConfigFromEnv([]string{"b:9092"}, func(k string) string {
				if k == "EVTOOL_HEARTBEAT_INTERVAL" {
					return v
				}
				return ""
			})
			_, err := cfg.Options()
			if err == nil || !strings.Contains(err.Error(), "EVTOOL_HEARTBEAT_INTERVAL") {
				t.Fatalf("Options() error = %v, want one naming EVTOOL_HEARTBEAT_INTERVAL", err)
			}
		})
	}
}

// The heartbeat interval reaches the client Options builds.
func TestClientConfigHeartbeatOption(t *testing.T) {
	opts, err := ClientConfig{Brokers: []string{"127.0.0.1:1"}, HeartbeatInterval: 20 * time.Second}.Options()
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(append(opts, kgo.ConsumerGroup("g"), kgo.ConsumeTopics("t"))...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if got := cl.OptValue(kgo.HeartbeatInterval); got != 20*time.Second {
		t.Fatalf("heartbeat interval %v, want 20s", got)
	}
}
