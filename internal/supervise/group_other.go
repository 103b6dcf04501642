//go:build !unix

package supervise

import (
	"os"
	"os/exec"
)

func setProcessGroup(*exec.Cmd) {}

// terminate asks the consumer to stop; without process groups and SIGTERM
// this is an interrupt where supported, else a kill.
func terminate(cmd *exec.Cmd) {
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		_ = cmd.Process.Kill()
	}
}

func kill(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

// pause and resume do nothing: there is no SIGSTOP here (a stall fault
// does not stall).
func pause(*exec.Cmd)  {}
func resume(*exec.Cmd) {}

// groupAlive is false: without process groups there is no group to wait
// for.
func groupAlive(*exec.Cmd) bool { return false }
