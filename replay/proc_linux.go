package replay

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// killLeftovers SIGKILLs the processes whose EVTOOL_WORKDIR is root or
// lies in it, and returns their pids: in the work root of a replay that
// was killed, the descendants of its consumers that its parent-death
// signal did not reach; in a run's work directory after the stop, those
// that left the consumer's process group (setsid). Only processes whose
// environment evtool may read (its user's) are considered; each is
// signalled through a pidfd, so a pid reused between the check and the
// signal is never hit.
func killLeftovers(root string) []int {
	exact := []byte("EVTOOL_WORKDIR=" + root)
	prefix := []byte("EVTOOL_WORKDIR=" + root + string(filepath.Separator))
	self := os.Getpid()
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var killed []int
	var dying []unix.PollFd
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil || pid == self {
			continue
		}
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue // exited, or a kernel without pidfds
		}
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err == nil && hasEnvEntry(env, exact, prefix) && unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0) == nil {
			killed = append(killed, pid)
			dying = append(dying, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
			continue
		}
		unix.Close(fd)
	}
	// Until they have exited (a pidfd is readable then), at most a
	// second: one still writing in root would make its removal fail.
	deadline := time.Now().Add(time.Second)
	for left := slices.Clone(dying); len(left) > 0 && time.Now().Before(deadline); {
		if _, err := unix.Poll(left, int(time.Until(deadline).Milliseconds())+1); err != nil && err != unix.EINTR {
			break
		}
		left = slices.DeleteFunc(left, func(p unix.PollFd) bool { return p.Revents != 0 })
	}
	for _, p := range dying {
		unix.Close(int(p.Fd))
	}
	return killed
}

// hasEnvEntry reports whether an entry of a NUL-separated environment is
// exact or starts with prefix.
func hasEnvEntry(env, exact, prefix []byte) bool {
	for e := range bytes.SplitSeq(env, []byte{0}) {
		if bytes.Equal(e, exact) || bytes.HasPrefix(e, prefix) {
			return true
		}
	}
	return false
}
