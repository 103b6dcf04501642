package waitfor

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestCondition(t *testing.T) {
	var n atomic.Int32
	if !Condition(10*time.Second, func() bool { return n.Add(1) == 3 }) {
		t.Fatal("a condition that became true was not seen")
	}
	if got := n.Load(); got != 3 {
		t.Errorf("checked %d times, want 3 (stop once true)", got)
	}
	if Condition(30*time.Millisecond, func() bool { return false }) {
		t.Error("a condition that never held was reported true")
	}
}
