// Package supervisetest watches, for tests, the processes that supervised
// processes start: whether one runs, the pid a script wrote, and its end.
package supervisetest

import (
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evtool/evtool/internal/waitfor"
)

// Within bounds every wait here: far beyond what a loaded machine needs,
// short enough to fail before go test's timeout.
const Within = 30 * time.Second

// Running reports whether pid runs (a zombie does not).
func Running(pid int) bool {
	if runtime.GOOS == "linux" {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return false
		}
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		return len(f) > 0 && f[0] != "Z" && f[0] != "X"
	}
	return syscall.Kill(pid, 0) == nil
}

// PidFrom waits for the pid a script wrote to file (a whole line), and
// kills that process when the test ends.
func PidFrom(t testing.TB, file string) int {
	t.Helper()
	var b []byte
	waitfor.Must(t, Within, "a pid in "+file, func() bool {
		var err error
		b, err = os.ReadFile(file)
		return err == nil && strings.HasSuffix(string(b), "\n")
	})
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	return pid
}

// MustEnd fails the test when pid still runs after Within; what names the
// process.
func MustEnd(t testing.TB, pid int, what string) {
	t.Helper()
	waitfor.Must(t, Within, what+" (pid "+strconv.Itoa(pid)+") ended", func() bool { return !Running(pid) })
}

// EnvironHas waits until the environment of pid, as /proc shows it to a
// process scan, holds entry (Linux; elsewhere it returns at once). A
// process that exec.Cmd.Start has just returned may not be there yet: the
// kernel lets the parent go on before it has finished the exec, and until
// then /proc/PID/environ reads empty. A test whose scan must find the
// process waits for this first, as a real leftover has long been running.
func EnvironHas(t testing.TB, pid int, entry string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		return
	}
	waitfor.Must(t, Within, "the environment of pid "+strconv.Itoa(pid)+" showing "+entry, func() bool {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		return err == nil && slices.Contains(strings.Split(string(b), "\x00"), entry)
	})
}
