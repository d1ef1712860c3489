package stack

import (
	"sync"
	"time"
)

// Interleaved calls every f for every query, rounds times, with c
// concurrent callers; each caller runs the fs back to back on one query,
// in an order that rotates, so that they see the same load and the
// machine's noise falls on all alike. It returns each f's latencies.
func Interleaved(c, rounds int, queries []string, fs ...func(q string)) [][]time.Duration {
	var mu sync.Mutex
	out := make([][]time.Duration, len(fs))
	work := make(chan int)
	var wg sync.WaitGroup
	for range c {
		wg.Go(func() {
			// An f that fails its test ends this caller (runtime.Goexit):
			// the rest of the work is drained so that the run ends too.
			defer func() {
				for range work {
				}
			}()
			for n := range work {
				q := queries[n%len(queries)]
				for k := range fs {
					j := (n + k) % len(fs)
					start := time.Now()
					fs[j](q)
					d := time.Since(start)
					mu.Lock()
					out[j] = append(out[j], d)
					mu.Unlock()
				}
			}
		})
	}
	for n := range rounds * len(queries) {
		work <- n
	}
	close(work)
	wg.Wait()
	return out
}
