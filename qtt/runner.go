package qtt

import "sync"

// runAll runs the variants on up to parallel workers. Results come back in
// the variants' order whatever the scheduling, so reports are
// deterministic.
func runAll(vs []*Variant, cfg runConfig, parallel int) []Result {
	results := make([]Result, len(vs))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < max(1, min(parallel, len(vs))); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = runVariant(vs[i], cfg)
			}
		}()
	}
	for i := range vs {
		next <- i
	}
	close(next)
	wg.Wait()
	return results
}
