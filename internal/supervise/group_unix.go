//go:build unix

package supervise

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts the process in a group of its own, to be
// signalled as a whole, with a parent-death signal where the platform has
// one (see Spawner).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(cmd.SysProcAttr)
}

// terminate sends SIGTERM to the process group.
func terminate(cmd *exec.Cmd) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
}

// kill sends SIGKILL to the process group.
func kill(cmd *exec.Cmd) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

// pause stops the process group (SIGSTOP); resume continues it.
func pause(cmd *exec.Cmd)  { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGSTOP) }
func resume(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGCONT) }
