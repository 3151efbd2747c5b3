package server

import (
	"context"
	"errors"
	"fmt"
)

// Shutdown drains the server: no new turn starts (503 shutting_down), the
// running turns finish — or, when ctx ends first, are cancelled and end
// with TurnCompleted (cancelled), written to their logs like any other
// end — then the streams that follow sessions end and the store is
// closed. Nothing a turn persisted is lost: every event is in the store
// and the audit log before its stream sees it. Call it before
// http.Server.Shutdown, whose wait for idle connections would otherwise
// wait on the event streams.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stopAccepting()
	drained := make(chan struct{})
	go func() {
		s.mu.Lock()
		for len(s.turns) > 0 {
			s.idle.Wait()
		}
		s.mu.Unlock()
		close(drained)
	}()
	var err error
	select {
	case <-drained:
	case <-ctx.Done():
		n := s.cancelTurns()
		<-drained
		err = fmt.Errorf("server: %d turn(s) cancelled at the shutdown deadline: %w", n, ctx.Err())
	}
	s.stopBase()
	return errors.Join(err, s.store.Close())
}

// stopAccepting makes every new turn fail with 503 shutting_down.
func (s *Server) stopAccepting() {
	s.mu.Lock()
	s.draining = true
	s.mu.Unlock()
}

// cancelTurns cancels every running turn and says how many there were.
func (s *Server) cancelTurns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, lt := range s.turns {
		lt.cancel()
	}
	return len(s.turns)
}
