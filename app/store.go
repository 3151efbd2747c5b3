package app

import (
	"context"
	"errors"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/session"
)

// StoredAudit is what the store holds of session id's audit log: a head per
// event, and where the log starts (a fork's, at its fork seq). It is nil
// for a session the store does not have.
func StoredAudit(ctx context.Context, st session.Store, id string) (*event.AuditStore, error) {
	info, err := st.Info(ctx, id)
	if errors.Is(err, session.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	heads, err := st.Heads(ctx, id)
	if err != nil {
		return nil, err
	}
	first := uint64(0)
	if info.ParentID != "" {
		first = info.ForkSeq
	}
	return &event.AuditStore{Heads: heads, First: first}, nil
}

// continuedAudit is what continuing session id checks its audit log
// against: the count of its events and the head of the last one (and a
// fork's start), not every head — each keyed record's MAC covers the one
// before it, so the last head pins the whole chain (event.AuditStore.Sparse).
// A session whose last event has no head (logged by an earlier version) is
// checked against every head. nil for a session the store does not have.
func continuedAudit(ctx context.Context, st session.Store, id string) (*event.AuditStore, error) {
	info, err := st.Info(ctx, id)
	if errors.Is(err, session.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	first := uint64(0)
	if info.ParentID != "" {
		first = info.ForkSeq
	}
	if info.LastSeq == 0 {
		return &event.AuditStore{First: first}, nil
	}
	last, err := st.Head(ctx, id, info.LastSeq)
	if err != nil {
		return nil, err
	}
	if last == nil {
		return StoredAudit(ctx, st, id)
	}
	heads := make([][]byte, info.LastSeq)
	heads[info.LastSeq-1] = last
	if first > 0 {
		if heads[first-1], err = st.Head(ctx, id, first); err != nil {
			return nil, err
		}
	}
	return &event.AuditStore{Heads: heads, First: first, Sparse: true}, nil
}
