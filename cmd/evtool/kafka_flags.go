package main

import (
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/evtool/evtool/kafka"
)

// kafkaFlags are the connection flags of the commands that read or write
// topics (validate --topic, verify, dlq): seed brokers, TLS and SASL.
type kafkaFlags struct {
	brokers []string
	cc      kafka.ClientConfig
}

func addKafkaFlags(fl *pflag.FlagSet, f *kafkaFlags, brokersUsage string) {
	fl.StringSliceVar(&f.brokers, "brokers", nil, brokersUsage)
	addSecurityFlags(fl, &f.cc)
}

// addSecurityFlags adds the TLS and SASL flags of every command that
// reaches a cluster.
func addSecurityFlags(fl *pflag.FlagSet, cc *kafka.ClientConfig) {
	fl.BoolVar(&cc.TLS, "tls", false, "connect with TLS")
	fl.StringVar(&cc.TLSCAFile, "tls-ca", "", "PEM file of the CAs to trust (implies --tls)")
	fl.StringVar(&cc.TLSCertFile, "tls-cert", "", "PEM client certificate (implies --tls)")
	fl.StringVar(&cc.TLSKeyFile, "tls-key", "", "PEM client key")
	fl.StringVar(&cc.TLSServerName, "tls-server-name", "", "server name to verify")
	fl.BoolVar(&cc.TLSInsecure, "tls-insecure", false, "do not verify the server's certificate")
	fl.StringVar(&cc.SASLMechanism, "sasl-mechanism", "", "SASL mechanism: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512")
	fl.StringVar(&cc.SASLUser, "sasl-user", "", "SASL user")
	fl.StringVar(&cc.SASLPassword, "sasl-password", "", "SASL password (better: the EVTOOL_SASL_PASSWORD environment variable)")
}

// config returns the client config with the seed brokers split at commas
// and the SASL password taken from EVTOOL_SASL_PASSWORD when not given.
func (f *kafkaFlags) config() kafka.ClientConfig {
	cc := f.cc
	cc.Brokers = splitList(f.brokers)
	if cc.SASLPassword == "" {
		cc.SASLPassword = os.Getenv("EVTOOL_SASL_PASSWORD")
	}
	return cc
}

// splitList splits each value at commas and drops empty items.
func splitList(values []string) []string {
	var out []string
	for _, v := range values {
		for _, x := range strings.Split(v, ",") {
			if x = strings.TrimSpace(x); x != "" {
				out = append(out, x)
			}
		}
	}
	return out
}
