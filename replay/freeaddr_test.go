package replay

import (
	"net"
	"strconv"
	"testing"
)

// The consumer's state port lies below the kernel's ephemeral range, where
// no outgoing connection can take it between the harness's pick and the
// consumer's bind, and it is free.
func TestFreeAddrOutsideEphemeralRange(t *testing.T) {
	lo, ok := ephemeralPortsStart()
	if !ok {
		t.Skip("the ephemeral port range is not known on this system")
	}
	for range 20 {
		addr, err := freeAddr()
		if err != nil {
			t.Fatal(err)
		}
		_, p, _ := net.SplitHostPort(addr)
		port, _ := strconv.Atoi(p)
		if port < minStatePort || port >= lo {
			t.Fatalf("port %d, want [%d, %d)", port, minStatePort, lo)
		}
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatalf("%s is not free: %v", addr, err)
		}
		l.Close()
	}
}
