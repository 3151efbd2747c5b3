package files

import (
	"context"
	"errors"
	"testing"
	"time"
)

// One path's lock does not hold another path; a waiter gives up at its
// deadline; the map keeps only paths in use.
func TestPathLocks(t *testing.T) {
	var l pathLocks
	unlockA, err := l.lock(context.Background(), "a")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	unlockB, err := l.lock(ctx, "b")
	if err != nil {
		t.Fatalf("b waited for a: %v", err)
	}
	unlockB()

	short, cancel2 := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel2()
	if _, err := l.lock(short, "a"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("second lock of a = %v, want a deadline error", err)
	}
	got := make(chan struct{})
	go func() {
		u, err := l.lock(context.Background(), "a")
		if err == nil {
			u()
		}
		close(got)
	}()
	unlockA()
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("waiter not woken")
	}
	l.mu.Lock()
	n := len(l.m)
	l.mu.Unlock()
	if n != 0 {
		t.Errorf("%d lock entries left", n)
	}
}
