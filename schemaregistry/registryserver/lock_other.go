//go:build !unix

package registryserver

import (
	"errors"
	"os"
)

// Without flock(2) the lock file is created but not locked: run one server
// per catalog directory.
var errWouldBlock = errors.New("locked")

func flockFile(*os.File, bool) error { return nil }

func funlockFile(*os.File) error { return nil }
