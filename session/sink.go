package session

import (
	"context"
	"fmt"

	"github.com/moteur/moteur/event"
)

// AuditHeads gives the session sink the head of the audit chain after an
// event: the MAC of the event's audit record. The audit log is the engine's
// sink written just before the store, so the head of the event being stored
// is that of the last record written; event.AuditSink implements it.
type AuditHeads interface {
	// Head returns the MAC of the audit record of the event (sessionID,
	// seq); ok is false when the audit log has not recorded that event.
	Head(sessionID string, seq uint64) (mac []byte, ok bool)
}

// Sink is the event.Sink that stores every persisted event of the engine in
// a Store, as it happens. Its Write returns once the event is durable (or
// the Store's error, which stops the engine).
type Sink struct {
	Store Store
	// Heads, when set, gives each event's audit head, stored with the
	// event in the same transaction (Store.AppendWithHeads). An event it
	// has no head for — one the audit log did not record — is refused,
	// and nothing is stored.
	Heads AuditHeads
}

// Write appends e to its session, with its audit head when Heads is set.
func (s Sink) Write(ctx context.Context, e event.Event) error {
	if s.Heads == nil {
		return s.Store.Append(ctx, e)
	}
	mac, ok := s.Heads.Head(e.SessionID, e.Seq)
	if !ok {
		return fmt.Errorf("session %s: event seq %d (%s) has no audit record: refusing to store what the audit log did not record",
			e.SessionID, e.Seq, e.Type)
	}
	return s.Store.AppendWithHeads(ctx, []event.Event{e}, [][]byte{mac})
}

var _ event.Sink = Sink{}
