package replay

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/evtool/evtool/internal/supervise"
	"github.com/evtool/evtool/report"
)

// buildProgressEvery is how often a build that is still running says so.
const buildProgressEvery = 10 * time.Second

// maxBuildOutput bounds the build output kept for an error message.
const maxBuildOutput = 8 << 10

// build runs consumer.build once per harness, before the first run and
// outside any run's clocks: compiling a consumer (go run) inside the
// baseline's settle_timeout made a cold first run time out. The command
// runs in consumer.dir with consumer.env and EVTOOL_BUILD, a directory for
// its output (buildOutputDir), which every run's environment (and so
// consumer.run) also gets. Progress goes to Options.BuildLog.
func (h *Harness) build(ctx context.Context) error {
	if len(h.sc.Consumer.Build) == 0 || h.buildDir != "" {
		return nil
	}
	dir, err := h.buildOutputDir()
	if err != nil {
		return err
	}
	vars := map[string]string{"EVTOOL_BUILD": dir}
	argv := make([]string, len(h.sc.Consumer.Build))
	for i, a := range h.sc.Consumer.Build {
		argv[i] = expandVars(a, vars)
	}
	env := append(os.Environ(), "EVTOOL_BUILD="+dir)
	for _, e := range h.sc.Consumer.Env {
		env = append(env, e.Name+"="+expandVars(e.Value, vars))
	}
	log := h.opts.BuildLog
	if log == nil {
		log = io.Discard
	}
	shown := report.Escape(strings.Join(argv, " "))
	fmt.Fprintf(log, "evtool replay: building the consumer (consumer.build, once per replay, outside the settle clock): %s\n", shown)
	start := time.Now()
	// The build runs under the supervisor as the consumer does: in a
	// process group of its own, so an interrupted build (a wrapper such
	// as sh -c or go run) stops with everything it started, and a
	// process it leaves behind cannot hold evtool's pipes.
	out := &tailBuffer{max: maxBuildOutput}
	p, err := h.spawner().Start(supervise.Spec{Argv: argv, Dir: h.sc.Consumer.Dir, Env: env, Stdout: out, Stderr: out})
	if err != nil {
		return fmt.Errorf("consumer.build: %w", err)
	}
	tick := time.NewTicker(buildProgressEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			p.Kill()
			return fmt.Errorf("consumer.build interrupted after %s", time.Since(start).Round(100*time.Millisecond))
		case <-p.Done():
			took := time.Since(start).Round(100 * time.Millisecond)
			if !p.Succeeded() {
				if ctx.Err() != nil {
					return fmt.Errorf("consumer.build interrupted after %s", took)
				}
				_, how := p.Exited()
				return fmt.Errorf("consumer.build (%s) failed after %s: %s\n%s", shown, took, how, strings.TrimRight(out.String(), "\n"))
			}
			fmt.Fprintf(log, "evtool replay: consumer built in %s\n", took)
			h.buildDir = dir
			return nil
		case <-tick.C:
			fmt.Fprintf(log, "evtool replay: still building the consumer (%s)\n", time.Since(start).Round(time.Second))
		}
	}
}

// buildOutputDir is EVTOOL_BUILD: a directory of the user's cache, one
// per consumer directory and build command, so that a later replay's
// build finds its output up to date (go build -o then does not link
// again: a cold link of the example consumer takes 20 s on a loaded
// machine); the replay's work root when there is no cache directory.
func (h *Harness) buildOutputDir() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		root, err := h.workRoot()
		if err != nil {
			return "", err
		}
		dir := filepath.Join(root, "build")
		return dir, os.MkdirAll(dir, 0o755)
	}
	consumerDir, err := filepath.Abs(h.sc.Consumer.Dir)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(consumerDir + "\x00" + strings.Join(h.sc.Consumer.Build, "\x00")))
	dir := filepath.Join(cache, "evtool", "replay-build", hex.EncodeToString(sum[:8]))
	return dir, os.MkdirAll(dir, 0o755)
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
	cut bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Write(p)
	if over := t.buf.Len() - t.max; over > 0 {
		t.buf.Next(over)
		t.cut = true
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cut {
		return "...\n" + t.buf.String()
	}
	return t.buf.String()
}
