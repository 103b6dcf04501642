package fuzzcost

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// recorder is a testing.TB that keeps what Check reports.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestCheck(t *testing.T) {
	b := Bound{Bytes: 1 << 20, BytesPerByte: 1 << 10, CPU: 10 * time.Second}
	tests := []struct {
		name  string
		size  int
		alloc int
		fail  bool
	}{
		{"within the fixed allowance", 0, 256 << 10, false},
		{"within the per-byte allowance", 1 << 10, 1 << 20, false},
		{"beyond the bound", 10, 8 << 20, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{TB: t}
			c := b.Check(r, tt.size, func() { runtime.KeepAlive(make([]byte, tt.alloc)) })
			if c.Bytes < int64(tt.alloc) {
				t.Errorf("measured %d bytes for an allocation of %d", c.Bytes, tt.alloc)
			}
			if got := len(r.errs) > 0; got != tt.fail {
				t.Fatalf("failed = %v, want %v: %v", got, tt.fail, r.errs)
			}
			if tt.fail && !strings.Contains(r.errs[0], "an input of 10 bytes") {
				t.Errorf("report does not name the input size: %s", r.errs[0])
			}
		})
	}
}

func TestCPUTimeAdvances(t *testing.T) {
	c := Measure(func() {
		for start := cpuTime(); cpuTime()-start < 20*time.Millisecond; {
		}
	})
	if c.CPU < 20*time.Millisecond {
		t.Errorf("a 20 ms busy loop measured %v", c.CPU)
	}
}
