//go:build !unix

package replay

import "os"

// lockWorkRoot does nothing: stale temporary roots are removed only where
// flock marks the live ones.
func lockWorkRoot(string) (*os.File, error) { return nil, nil }

// staleRoot is a removed stale work root (never, here).
type staleRoot struct {
	Dir    string
	Killed []int
}

func removeStaleWorkRoots(string) []staleRoot { return nil }

// killLeftovers kills nothing here: there is no /proc to find them in.
func killLeftovers(string) []int { return nil }
