package kafka

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// ClientConfig says how to reach a cluster. The zero value reaches nothing:
// callers fill Brokers, from a flag or from an embedded Broker.
type ClientConfig struct {
	Brokers []string

	// TLS is on when TLS is true or any of the files is set.
	TLS           bool
	TLSCAFile     string
	TLSCertFile   string
	TLSKeyFile    string
	TLSServerName string
	TLSInsecure   bool

	// SASLMechanism is PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (empty: none).
	SASLMechanism string
	SASLUser      string
	SASLPassword  string

	// DialTimeout bounds each connection attempt (default 10s).
	DialTimeout time.Duration

	// Compression is the codec of the record batches the client produces:
	// one of Compressions, empty meaning CompressionNone. None is the
	// default, not franz-go's Snappy, because not every client has every
	// codec (kafkajs has no Snappy) and a consumer that cannot decompress
	// a batch cannot read past it.
	Compression string

	// HeartbeatInterval is a consumer group member's heartbeat interval
	// on classic groups (0: franz-go's default, 3 s). A member learns of a
	// rebalance, or that it was evicted, at its next heartbeat; producers
	// ignore it.
	HeartbeatInterval time.Duration

	// invalid is why ClientConfigFromEnv could not read a variable:
	// Options returns it.
	invalid error
}

// The compression codecs of ClientConfig.Compression.
const (
	CompressionNone   = "none"
	CompressionGzip   = "gzip"
	CompressionSnappy = "snappy"
	CompressionLZ4    = "lz4"
	CompressionZstd   = "zstd"
)

// Compressions lists the codecs ClientConfig.Compression accepts.
var Compressions = []string{CompressionNone, CompressionGzip, CompressionSnappy, CompressionLZ4, CompressionZstd}

// CompressionCodec returns the franz-go codec of a compression name (empty:
// none), or an error naming the accepted ones.
func CompressionCodec(name string) (kgo.CompressionCodec, error) {
	switch name {
	case "", CompressionNone:
		return kgo.NoCompression(), nil
	case CompressionGzip:
		return kgo.GzipCompression(), nil
	case CompressionSnappy:
		return kgo.SnappyCompression(), nil
	case CompressionLZ4:
		return kgo.Lz4Compression(), nil
	case CompressionZstd:
		return kgo.ZstdCompression(), nil
	}
	return kgo.CompressionCodec{}, fmt.Errorf("unknown compression %q: use %s", name, strings.Join(Compressions, ", "))
}

// Options returns the franz-go options for the config, the producer's
// compression included. Callers add their own (consumer group, topics,
// producer settings) after these.
func (c ClientConfig) Options() ([]kgo.Opt, error) {
	if c.invalid != nil {
		return nil, c.invalid
	}
	if len(c.Brokers) == 0 {
		return nil, errors.New("no Kafka brokers given: pass --brokers host:port or omit it to use the embedded broker")
	}
	for _, b := range c.Brokers {
		if _, _, err := net.SplitHostPort(b); err != nil {
			return nil, fmt.Errorf("broker %q: want host:port", b)
		}
	}
	timeout := c.DialTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	codec, err := CompressionCodec(c.Compression)
	if err != nil {
		return nil, err
	}
	opts := []kgo.Opt{kgo.SeedBrokers(c.Brokers...), kgo.ProducerBatchCompression(codec)}
	if c.HeartbeatInterval > 0 {
		opts = append(opts, kgo.HeartbeatInterval(c.HeartbeatInterval))
	}
	dialer := &net.Dialer{Timeout: timeout}
	if c.TLS || c.TLSCAFile != "" || c.TLSCertFile != "" || c.TLSKeyFile != "" {
		tc, err := c.tlsConfig()
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.Dialer((&tls.Dialer{NetDialer: dialer, Config: tc}).DialContext))
	} else {
		opts = append(opts, kgo.Dialer(dialer.DialContext))
	}
	if c.SASLMechanism != "" {
		if c.SASLUser == "" {
			return nil, fmt.Errorf("SASL %s needs a user (--sasl-user)", c.SASLMechanism)
		}
		switch strings.ToUpper(c.SASLMechanism) {
		case "PLAIN":
			opts = append(opts, kgo.SASL(plain.Auth{User: c.SASLUser, Pass: c.SASLPassword}.AsMechanism()))
		case "SCRAM-SHA-256":
			opts = append(opts, kgo.SASL(scram.Auth{User: c.SASLUser, Pass: c.SASLPassword}.AsSha256Mechanism()))
		case "SCRAM-SHA-512":
			opts = append(opts, kgo.SASL(scram.Auth{User: c.SASLUser, Pass: c.SASLPassword}.AsSha512Mechanism()))
		default:
			return nil, fmt.Errorf("unknown SASL mechanism %q: use PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512", c.SASLMechanism)
		}
	}
	return opts, nil
}

func (c ClientConfig) tlsConfig() (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: c.TLSServerName, InsecureSkipVerify: c.TLSInsecure} //nolint:gosec // opt-in flag
	if c.TLSCAFile != "" {
		pem, err := os.ReadFile(c.TLSCAFile)
		if err != nil {
			return nil, fmt.Errorf("TLS CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("TLS CA file %s: no PEM certificates found", c.TLSCAFile)
		}
		tc.RootCAs = pool
	}
	if (c.TLSCertFile == "") != (c.TLSKeyFile == "") {
		return nil, errors.New("TLS client authentication needs both --tls-cert and --tls-key")
	}
	if c.TLSCertFile != "" {
		cert, err := tls.LoadX509KeyPair(c.TLSCertFile, c.TLSKeyFile)
		if err != nil {
			return nil, fmt.Errorf("TLS client certificate: %w", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

// Environ returns the TLS, SASL and heartbeat settings as the EVTOOL_TLS*,
// EVTOOL_SASL_* and EVTOOL_HEARTBEAT_INTERVAL variables that evtool replay
// passes to a consumer under test (brokers excluded: EVTOOL_BROKERS is the
// run's). Unset settings are left out; ClientConfigFromEnv reads them back.
func (c ClientConfig) Environ() []string {
	var env []string
	add := func(k, v string) {
		if v != "" {
			env = append(env, k+"="+v)
		}
	}
	if c.TLS || c.TLSCAFile != "" || c.TLSCertFile != "" {
		add("EVTOOL_TLS", "1")
	}
	add("EVTOOL_TLS_CA", c.TLSCAFile)
	add("EVTOOL_TLS_CERT", c.TLSCertFile)
	add("EVTOOL_TLS_KEY", c.TLSKeyFile)
	add("EVTOOL_TLS_SERVER_NAME", c.TLSServerName)
	if c.TLSInsecure {
		add("EVTOOL_TLS_INSECURE", "1")
	}
	add("EVTOOL_SASL_MECHANISM", c.SASLMechanism)
	add("EVTOOL_SASL_USER", c.SASLUser)
	add("EVTOOL_SASL_PASSWORD", c.SASLPassword)
	if c.HeartbeatInterval > 0 {
		add("EVTOOL_HEARTBEAT_INTERVAL", c.HeartbeatInterval.String())
	}
	return env
}

// groupSessionTimeout is franz-go's default session timeout, which
// evtool's consumers keep: a heartbeat interval must not exceed it.
const groupSessionTimeout = 45 * time.Second

// ClientConfigFromEnv is the client configuration of a consumer started by
// evtool replay: brokers, plus the TLS, SASL and heartbeat settings of
// Environ read with getenv (os.Getenv). A variable it cannot read is an
// error of Options.
func ClientConfigFromEnv(brokers []string, getenv func(string) string) ClientConfig {
	c := ClientConfig{
		Brokers:       brokers,
		TLS:           getenv("EVTOOL_TLS") != "",
		TLSCAFile:     getenv("EVTOOL_TLS_CA"),
		TLSCertFile:   getenv("EVTOOL_TLS_CERT"),
		TLSKeyFile:    getenv("EVTOOL_TLS_KEY"),
		TLSServerName: getenv("EVTOOL_TLS_SERVER_NAME"),
		TLSInsecure:   getenv("EVTOOL_TLS_INSECURE") != "",
		SASLMechanism: getenv("EVTOOL_SASL_MECHANISM"),
		SASLUser:      getenv("EVTOOL_SASL_USER"),
		SASLPassword:  getenv("EVTOOL_SASL_PASSWORD"),
	}
	if v := getenv("EVTOOL_HEARTBEAT_INTERVAL"); v != "" {
		d, err := time.ParseDuration(v)
		switch {
		case err != nil:
		case d <= 0:
			err = errors.New("not positive")
		case d > groupSessionTimeout:
			// kgo.NewClient refuses it, for a producer too, with an
			// error that does not name the variable.
			err = fmt.Errorf("longer than the group session timeout %v", groupSessionTimeout)
		}
		if err != nil {
			c.invalid = fmt.Errorf("EVTOOL_HEARTBEAT_INTERVAL=%q: want a positive duration up to %v such as 500ms (%v)", v, groupSessionTimeout, err)
		} else {
			c.HeartbeatInterval = d
		}
	}
	return c
}

// WaitReachable pings the cluster until it answers or wait passes: a
// wrong address, TLS setting or password otherwise shows as a client
// retrying its requests until some later timeout, as a bare EOF.
func WaitReachable(ctx context.Context, cl *kgo.Client, brokers []string, wait time.Duration) error {
	pctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	// last is the latest failure of a ping the wait did not cut short:
	// the cut one says only that the time is up.
	var last error
	for {
		err := cl.Ping(pctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if pctx.Err() == nil {
			last = err
		}
		select {
		case <-pctx.Done():
			if ctx.Err() != nil {
				return ctx.Err()
			}
			why := "no broker answered"
			if last != nil {
				why = last.Error()
			}
			return fmt.Errorf("cannot reach Kafka at %s within %s: %s (check the address and the TLS and SASL settings)", strings.Join(brokers, ","), wait, why)
		case <-time.After(300 * time.Millisecond):
		}
	}
}
