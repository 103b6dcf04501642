package consumers

import "runtime"

// parallelism is how many comparisons run at once.
func parallelism() int { return runtime.GOMAXPROCS(0) }
