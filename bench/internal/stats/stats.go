// Package stats holds the arithmetic the benchmark drivers share.
package stats

import "sort"

// Median is the middle of xs (the mean of the two middle values for an
// even count, 0 for none); xs is left as it was.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
