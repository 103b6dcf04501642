//go:build unix && !linux

package replay

import (
	"os/exec"
	"syscall"
)

// setParentDeathSignal does nothing: only Linux has a parent-death signal
// that exec can set.
func setParentDeathSignal(*syscall.SysProcAttr) {}

// groupAlive reports whether the group led by cmd still has a process
// (zombies included).
func groupAlive(cmd *exec.Cmd) bool {
	return syscall.Kill(-cmd.Process.Pid, 0) == nil
}

// killLeftovers kills nothing: without /proc the processes of a killed
// replay, or those that left a consumer's group, cannot be told from
// others.
func killLeftovers(string) []int { return nil }
