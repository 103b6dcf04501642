package kafka

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

func produceOne(t *testing.T, cfg ClientConfig) error { return produceWithin(t, cfg, 10*time.Second) }

// produceWithin produces one record; a client that cannot authenticate or
// verify the broker retries until the timeout, so failure cases pass a short one.
func produceWithin(t *testing.T, cfg ClientConfig, timeout time.Duration) error {
	t.Helper()
	opts, err := cfg.Options()
	if err != nil {
		return err
	}
	opts = append(opts, kgo.DefaultProduceTopic("t"), kgo.AllowAutoTopicCreation(), kgo.RequestRetries(1), kgo.RetryTimeout(3*time.Second))
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return cl.ProduceSync(ctx, &kgo.Record{Value: []byte("x")}).FirstErr()
}

func TestEmbeddedBroker(t *testing.T) {
	b, err := StartBroker(BrokerConfig{Brokers: 2, Partitions: 2, Topics: []string{"seeded"}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if len(b.Addrs()) != 2 {
		t.Fatalf("addrs = %v", b.Addrs())
	}
	for _, a := range b.Addrs() {
		if !strings.HasPrefix(a, "127.0.0.1:") {
			t.Errorf("broker listens on %s, want 127.0.0.1", a)
		}
	}
	if err := produceOne(t, ClientConfig{Brokers: b.Addrs()}); err != nil {
		t.Fatal(err)
	}
}

func TestBrokerAddrErrors(t *testing.T) {
	for _, addr := range []string{"nonsense", "127.0.0.1:99999", "127.0.0.1:x"} {
		if _, err := StartBroker(BrokerConfig{Addr: addr}); err == nil {
			t.Errorf("StartBroker(%q) succeeded", addr)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := StartBroker(BrokerConfig{Addr: l.Addr().String()}); err == nil {
		t.Error("StartBroker on a busy port succeeded")
	}
}

func TestOptionsErrors(t *testing.T) {
	tests := []struct {
		cfg  ClientConfig
		want string
	}{
		{ClientConfig{}, "no Kafka brokers"},
		{ClientConfig{Brokers: []string{"nohost"}}, "want host:port"},
		{ClientConfig{Brokers: []string{"a:1"}, SASLMechanism: "PLAIN"}, "needs a user"},
		{ClientConfig{Brokers: []string{"a:1"}, SASLMechanism: "GSSAPI", SASLUser: "u"}, "unknown SASL mechanism"},
		{ClientConfig{Brokers: []string{"a:1"}, TLSCertFile: "c.pem"}, "needs both"},
		{ClientConfig{Brokers: []string{"a:1"}, TLSCAFile: "/nonexistent/ca.pem"}, "TLS CA file"},
	}
	for _, tt := range tests {
		_, err := tt.cfg.Options()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: err = %v, want %q", tt.cfg, err, tt.want)
		}
	}
}

func TestSASL(t *testing.T) {
	t.Parallel()
	for _, mech := range []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"} {
		t.Run(mech, func(t *testing.T) {
			t.Parallel()
			c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.EnableSASL(), kfake.Superuser(mech, "alice", "s3cret"), kfake.AllowAutoTopicCreation())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			ok := ClientConfig{Brokers: c.ListenAddrs(), SASLMechanism: mech, SASLUser: "alice", SASLPassword: "s3cret"}
			if err := produceOne(t, ok); err != nil {
				t.Fatalf("right password: %v", err)
			}
			bad := ok
			bad.SASLPassword = "wrong"
			if err := produceWithin(t, bad, time.Second); err == nil {
				t.Fatal("wrong password accepted")
			}
		})
	}
}

func TestTLS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	caFile, serverCert := selfSigned(t, dir)
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.AllowAutoTopicCreation(),
		kfake.TLS(&tls.Config{Certificates: []tls.Certificate{serverCert}, MinVersion: tls.VersionTLS12}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := produceOne(t, ClientConfig{Brokers: c.ListenAddrs(), TLSCAFile: caFile, TLSServerName: "127.0.0.1"}); err != nil {
		t.Fatalf("TLS with the right CA: %v", err)
	}
	if err := produceWithin(t, ClientConfig{Brokers: c.ListenAddrs(), TLS: true}, time.Second); err == nil {
		t.Fatal("TLS with an unknown CA succeeded")
	}
}

func selfSigned(t *testing.T, dir string) (string, tls.Certificate) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "evtool test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyDER, _ := x509.MarshalECPrivateKey(key)
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
	caFile := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(caFile, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	return caFile, cert
}

func TestEmbeddedBrokerSASL(t *testing.T) {
	t.Parallel()
	b, err := StartBroker(BrokerConfig{SASLUsers: []SASLUser{{Mechanism: "SCRAM-SHA-512", User: "qa", Password: "pw"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ok := ClientConfig{Brokers: b.Addrs(), SASLMechanism: "SCRAM-SHA-512", SASLUser: "qa", SASLPassword: "pw"}
	if err := produceOne(t, ok); err != nil {
		t.Fatal(err)
	}
	if err := produceWithin(t, ClientConfig{Brokers: b.Addrs()}, time.Second); err == nil {
		t.Fatal("a client without SASL was let in")
	}
}

// TestCompression checks the codec of the batches a client built from a
// ClientConfig produces, as the consumer sees it in the record
// attributes: none unless asked, never franz-go's default Snappy.
func TestCompression(t *testing.T) {
	b, err := StartBroker(BrokerConfig{Partitions: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, tc := range []struct {
		compression string
		want        uint8 // the Kafka attribute: 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd
	}{
		{"", 0}, {"none", 0}, {"gzip", 1}, {"snappy", 2}, {"lz4", 3}, {"zstd", 4},
	} {
		t.Run("compression="+tc.compression, func(t *testing.T) {
			topic := "c-" + tc.compression
			opts, err := ClientConfig{Brokers: b.Addrs(), Compression: tc.compression}.Options()
			if err != nil {
				t.Fatal(err)
			}
			cl, err := kgo.NewClient(append(opts, kgo.DefaultProduceTopic(topic), kgo.AllowAutoTopicCreation(),
				kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))...)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			// A compressible value, so no codec falls back to none.
			if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte(strings.Repeat("compress me ", 100))}).FirstErr(); err != nil {
				t.Fatal(err)
			}
			fs := cl.PollRecords(ctx, 1)
			if err := fs.Err(); err != nil {
				t.Fatal(err)
			}
			recs := fs.Records()
			if len(recs) != 1 {
				t.Fatalf("got %d records", len(recs))
			}
			if got := recs[0].Attrs.CompressionType(); got != tc.want {
				t.Errorf("compression %q: batch codec %d, want %d", tc.compression, got, tc.want)
			}
		})
	}
	if _, err := (ClientConfig{Brokers: b.Addrs(), Compression: "brotli"}).Options(); err == nil || !strings.Contains(err.Error(), `unknown compression "brotli": use none, gzip, snappy, lz4, zstd`) {
		t.Errorf("brotli: err = %v", err)
	}
}
