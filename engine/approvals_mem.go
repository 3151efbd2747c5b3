package engine

import (
	"context"
	"fmt"
	"sync"
)

// memApprovals keeps the requests of an Engine without a store: only its
// own Respond can answer them, and they end with the process.
type memApprovals struct {
	mu   sync.Mutex
	reqs map[string]*memRequest
}

type memRequest struct {
	answered bool
	reply    Reply
}

func newMemApprovals() *memApprovals { return &memApprovals{reqs: map[string]*memRequest{}} }

func (m *memApprovals) open(_ context.Context, r request) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reqs[r.id] = &memRequest{}
	return nil
}

func (m *memApprovals) answer(_ context.Context, id string, r Reply) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	req, ok := m.reqs[id]
	if !ok || req.answered {
		return fmt.Errorf("%w: %q", ErrUnknownPermission, id)
	}
	req.answered, req.reply = true, r
	return nil
}

func (m *memApprovals) answered(_ context.Context, id string) (Reply, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if req, ok := m.reqs[id]; ok && req.answered {
		return req.reply, true, nil
	}
	return Reply{}, false, nil
}

// withdraw forgets the request: it is resolved either way.
func (m *memApprovals) withdraw(_ context.Context, id, _ string) (Reply, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	req, ok := m.reqs[id]
	delete(m.reqs, id)
	if ok && req.answered {
		return req.reply, true, nil
	}
	return Reply{}, false, nil
}

func (*memApprovals) shared() bool { return false }
