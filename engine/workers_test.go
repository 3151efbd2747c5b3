package engine

import (
	"runtime"
	"testing"
)

// idleWorkers is how many workers of p wait for a job.
func (p *workers) idleWorkers() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.idle)
}

// A job never waits for another to end: with no idle worker a new one
// starts, so a job that waits for a later one cannot dead-lock.
func TestWorkersNeverMakeAJobWait(t *testing.T) {
	var p workers
	second := make(chan struct{})
	done := make(chan struct{})
	p.run(func() { <-second; close(done) })
	p.run(func() { close(second) })
	<-done
}

// A worker that ran a job runs the next one: its stack, grown by the
// first, serves again.
func TestWorkersAreReused(t *testing.T) {
	var p workers
	for range 3 {
		ran := make(chan struct{})
		p.run(func() { close(ran) })
		<-ran
		for p.idleWorkers() == 0 {
			runtime.Gosched() // the worker goes back to the idle list after its job
		}
	}
	if p.started != 1 {
		t.Errorf("%d workers started for three jobs one after the other, want 1", p.started)
	}
}

// A worker taken by a caller at the moment it would retire stays to run
// the job handed to it.
func TestWorkerTakenWhileRetiring(t *testing.T) {
	var p workers
	w := &worker{jobs: make(chan func(), 1)}
	if p.retire(w) {
		t.Fatal("retire took a worker that is not idle")
	}
	p.idle = append(p.idle, w)
	if !p.retire(w) || len(p.idle) != 0 {
		t.Fatalf("retire of an idle worker: idle %d", len(p.idle))
	}
}
