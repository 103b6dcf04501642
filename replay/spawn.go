package replay

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/internal/supervise"
	"github.com/evtool/evtool/kafka"
)

// ReadState reads a state like a consumer's (GET spec.HTTP, or the stdout
// of spec.Command, started by sp) and returns its bytes, checked to be one
// JSON value: for a harness outside this package (evtool verify's
// producers). timeout bounds the GET or the command (0: StateHTTPTimeout
// or StateCommandTimeout); key names the scenario setting it comes from,
// for the message when it runs out ("": none).
func ReadState(ctx context.Context, sp *supervise.Spawner, spec StateSpec, dir string, env []string, expand func(string) string, timeout time.Duration, key string) ([]byte, error) {
	_, raw, _, err := readState(ctx, sp, spec, dir, env, expand, timeout, key)
	return raw, err
}

// FreeAddr returns a free 127.0.0.1 address for a process's endpoint.
func FreeAddr() (string, error) { return freeAddr() }

// ExpandVars expands ${VAR} and $VAR in a scenario string from vars, else
// the environment; $$ is a literal $.
func ExpandVars(s string, vars map[string]string) string { return expandVars(s, vars) }

// ReproduceCommand renders the command line that reruns a chaos run with
// the given seed and faults, against the same brokers with the same client
// flags, never with the SASL password (the command reads
// EVTOOL_SASL_PASSWORD). command is e.g. "evtool verify scenario.yaml".
func ReproduceCommand(command string, seed uint64, sel chaos.Selection, brokers []string, c kafka.ClientConfig) string {
	words := []string{command, "--seed", strconv.FormatUint(seed, 10)}
	if !sel.IsAll() {
		words = append(words, "--faults", sel.String())
	}
	flag := func(name, value string) {
		if value != "" {
			words = append(words, name, shellQuote(value))
		}
	}
	flag("--brokers", strings.Join(brokers, ","))
	flag("--compression", c.Compression)
	if c.TLS {
		words = append(words, "--tls")
	}
	flag("--tls-ca", c.TLSCAFile)
	flag("--tls-cert", c.TLSCertFile)
	flag("--tls-key", c.TLSKeyFile)
	flag("--tls-server-name", c.TLSServerName)
	if c.TLSInsecure {
		words = append(words, "--tls-insecure")
	}
	flag("--sasl-mechanism", c.SASLMechanism)
	flag("--sasl-user", c.SASLUser)
	return strings.Join(words, " ")
}
