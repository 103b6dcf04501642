//go:build unix

package replay

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// lockWorkRoot marks a temporary work root as in use for as long as the
// returned file is open: the kernel drops the lock when evtool exits, even
// SIGKILLed. The lock is taken on a file of another name first, so no
// other replay sees the marker unlocked.
func lockWorkRoot(dir string) (*os.File, error) {
	tmp := filepath.Join(dir, workRootLockName+".new")
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, workRootLockName)); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// staleRoot is a temporary work root that removeStaleWorkRoots removed,
// with the pids of the processes it killed that still ran in it.
type staleRoot struct {
	Dir    string
	Killed []int
}

// removeStaleWorkRoots removes the temporary work roots in parent that a
// replay created (they hold its marker) and no longer holds locked: that
// replay was killed before it could remove them. What that replay started
// and its parent-death signal did not reach (the program `go run`
// compiled, a script's children) is killed first, where the platform lets
// it be found (see killLeftovers).
func removeStaleWorkRoots(parent string) (removed []staleRoot) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), workRootPrefix) {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		if info, err := e.Info(); err != nil || !ownedByMe(info) {
			continue
		}
		// Non-blocking, and a regular file only: opening a FIFO that
		// someone named like the marker would wait for a writer.
		f, err := os.OpenFile(filepath.Join(dir, workRootLockName), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
		if err != nil {
			continue // not a root of a replay that locks, or kept
		}
		if info, err := f.Stat(); err == nil && info.Mode().IsRegular() &&
			syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			killed := killLeftovers(dir)
			if os.RemoveAll(dir) == nil {
				removed = append(removed, staleRoot{Dir: dir, Killed: killed})
			}
		}
		f.Close()
	}
	return removed
}

func ownedByMe(info os.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
