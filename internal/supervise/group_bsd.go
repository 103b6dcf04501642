//go:build unix && !linux

package supervise

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
