package engine

import (
	"sync"
	"time"
)

// The calls of a round run on goroutines of their own. A new goroutine
// starts with a small stack and grows it by copying as the call goes deep
// (argument decoding, schema validation, the tool): a fifth of a turn's
// CPU went to that. workers keeps the goroutines that ran calls for a
// while, their stacks grown, and gives them the next calls; one that stays
// idle for workerIdle ends.

// workerIdle is how long an idle worker waits for a call before it ends.
const workerIdle = 2 * time.Second

// workers is a pool of goroutines that run functions, never making a
// caller wait: with no idle worker, a new one starts. It is safe for
// concurrent use.
type workers struct {
	mu      sync.Mutex
	idle    []*worker // most recently idle last
	started int       // workers started, for tests
}

type worker struct {
	jobs chan func() // buffered 1: a handed job never blocks the caller
}

// callWorkers run the tool calls of every engine of the process.
var callWorkers workers

// run runs f on a worker.
func (p *workers) run(f func()) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		w := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		w.jobs <- f
		return
	}
	p.started++
	p.mu.Unlock()
	w := &worker{jobs: make(chan func(), 1)}
	w.jobs <- f
	go p.loop(w)
}

// loop runs w's jobs until it has been idle for workerIdle.
func (p *workers) loop(w *worker) {
	timer := time.NewTimer(workerIdle)
	defer timer.Stop()
	for {
		select {
		case f := <-w.jobs:
			f()
			p.mu.Lock()
			p.idle = append(p.idle, w)
			p.mu.Unlock()
			timer.Reset(workerIdle)
		case <-timer.C:
			if p.retire(w) {
				return
			}
			// A caller took w just now: its job is on the way.
			timer.Reset(workerIdle)
		}
	}
}

// retire takes w off the idle list, reporting false when it was not there
// (a caller has taken it and is handing it a job).
func (p *workers) retire(w *worker) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, x := range p.idle {
		if x == w {
			p.idle = append(p.idle[:i], p.idle[i+1:]...)
			return true
		}
	}
	return false
}
