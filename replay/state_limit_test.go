package replay

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// A state command that outgrows its size or time limit is reported by the
// limit it broke, not by the broken pipe (a Python traceback) or the
// "signal: killed" it caused.
func TestRunStateCommandLimits(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	env := os.Environ()
	for _, c := range []struct {
		name, script string
		limit        int64
		timeout      time.Duration
		want         string
	}{
		{"too large", `i=0; while [ $i -lt 2000 ]; do echo 0123456789012345678901234567890123456789 || { echo "Traceback: BrokenPipeError" >&2; exit 1; }; i=$((i+1)); done`,
			1000, time.Minute, "state larger than 1000 bytes (the limit of a state; the command was stopped)"},
		{"too slow", `exec sleep 30`, 1000, 300 * time.Millisecond, "state.command did not finish within 300ms (its time limit): killed"},
		{"fails", `echo boom >&2; exit 3`, 1000, time.Minute, "exit status 3: boom"},
	} {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			_, err := runStateCommand(context.Background(), sh, []string{"sh", "-c", c.script}, t.TempDir(), env, c.limit, c.timeout)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			if time.Since(start) > 20*time.Second {
				t.Errorf("took %s", time.Since(start))
			}
		})
	}
	out, err := runStateCommand(context.Background(), sh, []string{"sh", "-c", `echo '{"a":1}'`}, t.TempDir(), env, 1000, time.Minute)
	if err != nil || strings.TrimSpace(string(out)) != `{"a":1}` {
		t.Fatalf("out %q, err %v", out, err)
	}
}
