//go:build unix

package fuzzcost

import (
	"syscall"
	"time"
)

// cpuTime is the process's user and system time: unlike wall time it does
// not grow while other processes hold the cores.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return wallClock()
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
