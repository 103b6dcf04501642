// Package pythontest finds a python3 for interop tests with clients
// written in Python (confluent-kafka, avro, protobuf from Debian).
package pythontest

import (
	"os/exec"
	"strings"
	"testing"
)

// With returns a python3 that imports every module, or skips t saying
// what to install.
func With(t testing.TB, install string, modules ...string) string {
	t.Helper()
	imports := "import " + strings.Join(modules, ", ")
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if path, err := exec.LookPath(p); err == nil && exec.Command(path, "-c", imports).Run() == nil {
			return path
		}
	}
	t.Skipf("no python3 with %s (%s)", strings.Join(modules, ", "), install)
	return ""
}
