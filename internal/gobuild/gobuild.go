// Package gobuild gives tests an executable of a main package of the
// module without linking it again in every test binary.
//
// `go build -o` links every time (several CPU-seconds for evtool or an
// example consumer, once in each package that needs one), while `go run`
// keeps the executables it links in the Go build cache and finds them
// there again when nothing changed. Executable asks `go run -exec echo`
// for that cached executable's path instead of running it.
package gobuild

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Executable returns the path of the executable of pkg (an import path,
// or a directory relative to dir such as ./cmd/evtool) built in dir. The
// file may sit in the Go build cache: callers run it, never write it or
// its directory. When the cache gives no lasting path (caching off, or an
// older go), it builds with `go build -o` into a new directory under
// os.TempDir.
func Executable(dir, pkg string) (string, error) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		goTool = "go"
	}
	// The first run after a change links into go run's work directory,
	// removed when it exits, and stores the executable in the cache; the
	// second finds it there.
	for range 2 {
		exe, err := cachedPath(goTool, dir, pkg)
		if err != nil {
			return "", err
		}
		if st, err := os.Stat(exe); err == nil && st.Mode().IsRegular() {
			return exe, nil
		}
	}
	out, err := os.MkdirTemp("", "evtool-gobuild-")
	if err != nil {
		return "", err
	}
	exe := filepath.Join(out, filepath.Base(pkg))
	cmd := exec.Command(goTool, "build", "-o", exe, pkg)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %w\n%s", pkg, err, b)
	}
	return exe, nil
}

// cachedPath runs `go run -exec echo pkg`, which prints the path of the
// executable go run would start.
func cachedPath(goTool, dir, pkg string) (string, error) {
	cmd := exec.Command(goTool, "run", "-exec", "echo", pkg)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go run -exec echo %s: %w\n%s", pkg, err, stderr.Bytes())
	}
	exe := strings.TrimSuffix(stdout.String(), "\n")
	if exe == "" || strings.Contains(exe, "\n") {
		return "", errors.New("go run -exec echo " + pkg + " printed no single path: " + stdout.String())
	}
	return exe, nil
}
