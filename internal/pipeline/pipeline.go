// Package pipeline runs a function over a stream on all cores and delivers
// the results in input order, with a bounded number of items in flight so
// memory stays constant however long the stream is.
package pipeline

import (
	"context"
	"runtime"
	"sync"
)

// Ordered reads items with next until it reports done, applies work to
// each on `workers` goroutines (0: GOMAXPROCS), and calls emit with the
// results in the order the items were read. Items travel in batches of
// `batch` (0: 64) so that channel hand-offs cost little next to the work;
// at most 4 batches per worker are in flight. The first error from next or
// emit stops the pipeline and is returned.
func Ordered[I, O any](ctx context.Context, workers, batch int, next func() (I, bool, error), work func(I) O, emit func(O) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if batch <= 0 {
		batch = 64
	}
	window := 4 * workers
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	type job struct {
		items []I
		out   chan []O
	}
	jobs := make(chan job, window)
	order := make(chan chan []O, window)

	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				res := make([]O, len(j.items))
				for i, it := range j.items {
					res[i] = work(it)
				}
				j.out <- res
			}
		}()
	}

	readErr := make(chan error, 1)
	go func() {
		defer close(order)
		defer close(jobs)
		send := func(items []I) bool {
			out := make(chan []O, 1)
			select {
			case order <- out:
			case <-ctx.Done():
				return false
			}
			select {
			case jobs <- job{items, out}:
				return true
			case <-ctx.Done():
				return false
			}
		}
		items := make([]I, 0, batch)
		for {
			item, ok, err := next()
			if err != nil {
				if len(items) > 0 {
					send(items)
				}
				readErr <- err
				return
			}
			if !ok {
				if len(items) > 0 {
					send(items)
				}
				readErr <- nil
				return
			}
			items = append(items, item)
			if len(items) == batch {
				if !send(items) {
					readErr <- nil
					return
				}
				items = make([]I, 0, batch)
			}
		}
	}()

	var emitErr error
	for out := range order {
		if emitErr != nil {
			continue // drain so the reader can finish
		}
		var res []O
		select {
		case res = <-out:
		case <-ctx.Done():
			emitErr = ctx.Err()
			cancel()
			continue
		}
		for _, r := range res {
			if err := emit(r); err != nil {
				emitErr = err
				cancel()
				break
			}
		}
	}
	wg.Wait()
	if err := <-readErr; err != nil {
		return err
	}
	if emitErr != nil {
		return emitErr
	}
	return ctx.Err()
}
