package gpfa

import (
	"context"
	"sync"
)

// runJobs runs n jobs with at most par at once, in index order of start;
// each job writes its own result slot. It stops starting jobs once ctx is
// cancelled.
func runJobs(ctx context.Context, n, par int, job func(i int)) {
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			job(i)
		}(i)
	}
	wg.Wait()
}
