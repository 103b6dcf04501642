//go:build !unix

package bugs

// withLock runs fn: without flock one instance per group is safe.
func withLock(_ string, fn func() error) error { return fn() }
