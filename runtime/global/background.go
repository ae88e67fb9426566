package global

import (
	"context"
	"sync"
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/exec"
)

// Loading is the runner of a query whose global stores are loading in
// the background (Background): the engine starts a query joining a
// global table on Kafka without waiting for the load under its lock; the
// query's own runner starts once every store holds its topic up to the
// end offsets seen at the load's start, so no stream record is processed
// before.
type Loading struct {
	cancel context.CancelFunc
	done   chan struct{} // closed once the load ended and the runner (if any) is set
	mu     sync.Mutex
	r      exec.Runner // the query's runner once the load is done
}

// Background loads the stores of specs, then calls run with them and how
// long the load took; the runner run returns is the query's (Stop stops
// it, then closes the stores), and run reports its own error (the stores
// are closed). A load that fails goes to loadFailed. Stop before the load
// is done cancels it.
func Background(specs []physical.GlobalStoreSpec, env Env, run func(*Stores, time.Duration) (exec.Runner, error), loadFailed func(error)) *Loading {
	ctx, cancel := context.WithCancel(context.Background())
	l := &Loading{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		start := time.Now()
		g, err := Start(ctx, specs, env)
		if ctx.Err() != nil {
			g.Close()
			return // stopped meanwhile
		}
		if err != nil {
			loadFailed(err)
			return
		}
		r, err := run(g, time.Since(start))
		if err != nil {
			g.Close()
			return
		}
		l.mu.Lock()
		l.r = WithStores(r, g)
		l.mu.Unlock()
	}()
	return l
}

// Stop implements exec.Runner: it cancels the load, waits for it, then
// stops the runner it started.
func (l *Loading) Stop() error {
	l.cancel()
	<-l.done
	l.mu.Lock()
	r := l.r
	l.r = nil
	l.mu.Unlock()
	if r == nil {
		return nil
	}
	return r.Stop()
}

// Started returns the runner started after the load (nil: none yet).
func (l *Loading) Started() exec.Runner {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r
}
