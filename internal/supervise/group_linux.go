package supervise

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
)

// setParentDeathSignal has the kernel SIGKILL the child when the thread
// that started it exits (evtool killed included). Only the child: its own
// children are not signalled.
func setParentDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// groupAlive reports whether a process of the group led by cmd is still
// running. Zombies do not count: an orphan that init has not reaped yet is
// not running, and kill(-pgid, 0) would still find it.
func groupAlive(cmd *exec.Cmd) bool {
	pgid := cmd.Process.Pid
	if syscall.Kill(-pgid, 0) == syscall.ESRCH {
		return false // no process at all, zombies included: no scan
	}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // exited meanwhile
		}
		// pid (comm) state ppid pgrp ...; comm may hold anything.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		fields := bytes.Fields(b[i+1:])
		if len(fields) < 3 || string(fields[0]) == "Z" || string(fields[0]) == "X" {
			continue
		}
		if g, err := strconv.Atoi(string(fields[2])); err == nil && g == pgid {
			return true
		}
	}
	return false
}
