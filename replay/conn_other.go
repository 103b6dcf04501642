//go:build !linux

package replay

// instanceOfConn cannot tell the process of a connection here.
func instanceOfConn(string, string) (int, bool) { return 0, false }
