package replay

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// instanceOfConn returns EVTOOL_INSTANCE of the process with the run's
// work directory that owns the client end of a broker connection
// (host:port as the broker sees it): the socket's inode from
// /proc/net/tcp, then the process holding it among those whose
// EVTOOL_WORKDIR is workdir.
func instanceOfConn(clientHost, workdir string) (int, bool) {
	_, portText, err := net.SplitHostPort(clientHost)
	if err != nil {
		return 0, false
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return 0, false
	}
	inode := socketInode(port)
	if inode == "" {
		return 0, false
	}
	want := "socket:[" + inode + "]"
	exact := []byte("EVTOOL_WORKDIR=" + workdir)
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil || !hasEnvEntry(env, exact, exact) {
			continue
		}
		fds, _ := os.ReadDir(filepath.Join(d, "fd"))
		for _, fd := range fds {
			if l, err := os.Readlink(filepath.Join(d, "fd", fd.Name())); err == nil && l == want {
				return envInstance(env)
			}
		}
	}
	return 0, false
}

func envInstance(env []byte) (int, bool) {
	for e := range bytes.SplitSeq(env, []byte{0}) {
		if v, ok := bytes.CutPrefix(e, []byte("EVTOOL_INSTANCE=")); ok {
			i, err := strconv.Atoi(string(v))
			return i, err == nil
		}
	}
	return 0, false
}

// socketInode finds the inode of the TCP socket whose local port is port.
func socketInode(port int) string {
	suffix := fmt.Sprintf(":%04X", port)
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		fh, err := os.Open(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			// An established socket (state 01) with an inode: a closed
			// connection of the same port lingers in TIME_WAIT with 0.
			if len(fields) < 10 || !strings.HasSuffix(fields[1], suffix) || fields[3] != "01" || fields[9] == "0" {
				continue
			}
			fh.Close()
			return fields[9]
		}
		fh.Close()
	}
	return ""
}
