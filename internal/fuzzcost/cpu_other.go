//go:build !unix

package fuzzcost

import "time"

func cpuTime() time.Duration { return wallClock() }
