//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evtool/evtool/catalog/catalogtest"
	"github.com/evtool/evtool/internal/gobuild"
)

// TestCommandsStopOnSIGTERM: the built evtool, sent SIGTERM while it
// loads or checks a large catalog, stops soon instead of finishing the
// work: exit 2, one line saying what was interrupted, no report. Each
// command also runs to the end once, uninterrupted, for the bound.
func TestCommandsStopOnSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs evtool on a generated catalog of 300 types, to the end and interrupted")
	}
	if _, err := os.Stat("/proc/self/io"); err != nil {
		t.Skipf("readiness is read from /proc/PID/io: %v", err)
	}
	exe, err := gobuild.Executable(filepath.Join("..", ".."), "./cmd/evtool")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cat := filepath.Join(dir, "catalog")
	if err := catalogtest.Generate(cat, catalogtest.GenOptions{Types: 300, Versions: 3, Mix: catalogtest.MixAll}); err != nil {
		t.Fatal(err)
	}
	// One consumer reading every version of every type, whole.
	if err := writeReadsAll(cat); err != nil {
		t.Fatal(err)
	}
	// One event of a type the catalog lacks: a finding (exit 1) once the
	// catalog is loaded.
	events := filepath.Join(dir, "events.jsonl")
	if err := os.WriteFile(events, []byte(`{"specversion":"1.0","id":"1","source":"/test","type":"com.example.absent"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string // stderr of the interrupted run
	}{
		{"compat check", []string{"compat", "check", "--dir", cat},
			`interrupted while (loading the catalog \S+: terminated signal received|checking \S+: ([0-9]+) of 300 type\(s\) checked)`},
		{"lint", []string{"lint", "--dir", cat},
			`interrupted while (loading the catalog \S+: terminated signal received|linting \S+: ([0-9]+) of 300 type\(s\) checked)`},
		{"validate", []string{"validate", "--dir", cat, events},
			`interrupted while loading the catalog \S+: terminated signal received`},
		{"consumers check", []string{"consumers", "check", "--dir", cat},
			`interrupted while (loading the catalog \S+: terminated signal received|checking \S+: ([0-9]+) of 300 type\(s\) checked)`},
		{"docs", []string{"docs", "--dir", cat, "--out", "OUT"},
			`interrupted while (loading the catalog \S+: terminated signal received|checking the compatibility of \S+: ([0-9]+) of 300 type\(s\) checked)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := func(out string) []string {
				a := append([]string(nil), tc.args...)
				for i := range a {
					if a[i] == "OUT" {
						a[i] = filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+"-"+out)
					}
				}
				return a
			}
			start := time.Now()
			// Findings (exit 1) are a result too.
			if out, err := exec.Command(exe, args("full")...).CombinedOutput(); err != nil {
				if ee := (*exec.ExitError)(nil); !errors.As(err, &ee) || ee.ExitCode() != exitFindings {
					t.Fatalf("uninterrupted: %v\n%s", err, out)
				}
			}
			full := time.Since(start)

			cmd := exec.Command(exe, args("interrupted")...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			// Ready once it has read a good part of the catalog: by then
			// main is running and catches SIGTERM (sent earlier, the Go
			// runtime's default would kill it instead).
			if err := waitForRead(cmd.Process.Pid, 256<<10, exited); err != nil {
				t.Fatal(err)
			}
			sent := time.Now()
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			var werr error
			select {
			case werr = <-exited:
			case <-time.After(full + time.Minute):
				_ = cmd.Process.Kill()
				t.Fatalf("still running %s after SIGTERM (the whole run took %s)", time.Since(sent), full)
			}
			took := time.Since(sent)
			var ee *exec.ExitError
			if !errors.As(werr, &ee) || ee.ExitCode() != exitError {
				t.Fatalf("exit: %v, want status 2\nstdout %q\nstderr %q", werr, stdout.String(), stderr.String())
			}
			m := regexp.MustCompile(`^evtool: ` + tc.want + `\n$`).FindStringSubmatch(stderr.String())
			if m == nil || stdout.Len() > 0 {
				t.Fatalf("stdout %q, stderr %q: want no report and one line matching %q", stdout.String(), stderr.String(), tc.want)
			}
			if n := m[len(m)-1]; n == "300" {
				t.Errorf("stderr %q: every type was checked before the signal was seen", stderr.String())
			}
			// Wall times on a shared machine: only a stop slower than
			// half the whole run and than 2s is one that waited.
			if took > full/2 && took > 2*time.Second {
				t.Errorf("stopped %s after SIGTERM; the whole run takes %s", took, full)
			}
			t.Logf("uninterrupted %s; stopped %s after SIGTERM: %s", full.Round(time.Millisecond), took.Round(time.Millisecond), strings.TrimSpace(stderr.String()))
		})
	}
}

// waitForRead waits until process pid has read at least n bytes
// (/proc/PID/io rchar), or fails when it exits first or after a minute.
func waitForRead(pid int, n int64, exited <-chan error) error {
	deadline := time.Now().Add(time.Minute)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/io"); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(line, "rchar: "); ok {
					if r, _ := strconv.ParseInt(v, 10, 64); r >= n {
						return nil
					}
				}
			}
		}
		select {
		case err := <-exited:
			return errors.New("exited before reading " + strconv.FormatInt(n, 10) + " bytes: " + errString(err))
		case <-tick.C:
		}
		if time.Now().After(deadline) {
			return errors.New("had not read " + strconv.FormatInt(n, 10) + " bytes after a minute")
		}
	}
}

func errString(err error) string {
	if err == nil {
		return "exit 0"
	}
	return err.Error()
}

// writeReadsAll writes consumers/all.yaml, a contract that reads every
// version of every type of the catalog in dir, whole.
func writeReadsAll(dir string) error {
	var b strings.Builder
	b.WriteString("reads:\n")
	err := filepath.WalkDir(filepath.Join(dir, "schemas"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "event.yaml" {
			return err
		}
		typeDir := filepath.Dir(p)
		var versions []string
		entries, err := os.ReadDir(typeDir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if n, ok := strings.CutPrefix(strings.TrimSuffix(e.Name(), filepath.Ext(e.Name())), "v"); ok && e.Name() != "event.yaml" {
				if _, err := strconv.Atoi(n); err == nil {
					versions = append(versions, n)
				}
			}
		}
		fmt.Fprintf(&b, "  %s:\n    versions: [%s]\n", filepath.Base(typeDir), strings.Join(versions, ", "))
		return nil
	})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "consumers"), 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "consumers", "all.yaml"), []byte(b.String()), 0o644)
}
