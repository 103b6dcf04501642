package registryserver

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// LockFile, in the state directory, is locked by every `evtool registry
// serve` of the catalog: a writing server holds it exclusively, read-only
// servers share it. Two writers would each assign the next schema ids from
// their own memory and hand the same id to different schemas.
const LockFile = "serve.lock"

// ErrLocked reports that another server holds the catalog's lock.
var ErrLocked = errors.New("the catalog is served by another evtool registry serve")

// dirLock is a held lock on a catalog directory.
type dirLock struct {
	f         *os.File
	path      string
	exclusive bool
}

// lockCatalog takes the lock of the catalog whose state directory is
// stateDir. A read-only server writes nothing, not even the lock file: it
// shares the lock when the file exists (a writing server ran there) and
// serves without one otherwise; it persists no id, so it cannot make a
// writing server's ids ambiguous on disk. The lock is released when the
// process ends, however it ends.
func lockCatalog(stateDir string, readOnly bool) (*dirLock, error) {
	p := filepath.Join(stateDir, LockFile)
	var (
		f   *os.File
		err error
	)
	if readOnly {
		if f, err = os.Open(p); err != nil {
			return nil, nil
		}
	} else if f, err = openLockFile(stateDir, p); err != nil {
		return nil, fmt.Errorf("cannot create the lock file %s: %w", p, unwrapPath(err))
	}
	if err := flockFile(f, !readOnly); err != nil {
		f.Close()
		if errors.Is(err, errWouldBlock) {
			holder := "pid and address unknown"
			if data, rerr := os.ReadFile(p); rerr == nil && len(strings.TrimSpace(string(data))) > 0 {
				holder = strings.Join(strings.Fields(string(data)), " ")
			}
			return nil, fmt.Errorf("%w (%s; lock %s): stop it first, or serve with --read-only next to another read-only server", ErrLocked, holder, p)
		}
		return nil, fmt.Errorf("cannot lock %s: %w", p, err)
	}
	return &dirLock{f: f, path: p, exclusive: !readOnly}, nil
}

func openLockFile(stateDir, p string) (*os.File, error) {
	if f, err := os.OpenFile(p, os.O_RDWR, 0); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return f, err
	}
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		return nil, err
	}
	// The lock file is local to a machine: keep it out of git (ids.json
	// belongs in git).
	ignore := filepath.Join(stateDir, ".gitignore")
	if _, err := os.Stat(ignore); errors.Is(err, fs.ErrNotExist) {
		_ = os.WriteFile(ignore, []byte(LockFile+"\n"), 0o644)
	}
	return os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
}

// announce records who holds the lock, for the message a second server
// prints. Shared (read-only) holders leave the file as it is.
func (l *dirLock) announce(addr string) {
	if l == nil || !l.exclusive {
		return
	}
	msg := fmt.Sprintf("pid %d on %s\n", os.Getpid(), addr)
	if err := l.f.Truncate(0); err == nil {
		_, _ = l.f.WriteAt([]byte(msg), 0)
	}
}

func (l *dirLock) release() {
	if l == nil {
		return
	}
	if l.exclusive {
		_ = l.f.Truncate(0)
	}
	_ = funlockFile(l.f)
	_ = l.f.Close()
}
