package engine

import (
	"context"
	"errors"
	"fmt"

	storage "github.com/moteur/moteur/session"
)

// approvalStore is implemented by stores that keep permission requests
// (session.Store): any process with the store can answer them, and a
// request outlives the process that asked.
type approvalStore interface {
	OpenApproval(ctx context.Context, a storage.Approval) error
	AnswerApproval(ctx context.Context, id string, ans storage.Answer, by string) (storage.Approval, error)
	WithdrawApproval(ctx context.Context, id, by string) (storage.Approval, error)
	Approval(ctx context.Context, id string) (storage.Approval, error)
}

// storeApprovals is the approval backend of a store that keeps them.
type storeApprovals struct{ st approvalStore }

// storeApprovalsOf is the store's approvals when it keeps them.
func storeApprovalsOf(s Store) (approvalBackend, bool) {
	as, ok := s.(approvalStore)
	if !ok {
		return nil, false
	}
	return storeApprovals{st: as}, true
}

func (b storeApprovals) open(ctx context.Context, r request) error {
	err := b.st.OpenApproval(ctx, storage.Approval{ID: r.id, SessionID: r.session, Number: r.number, CallID: r.callID,
		Tool: r.tool, Summary: r.summary, Risk: r.risk, Sandboxed: r.sandboxed})
	if err != nil {
		return fmt.Errorf("permission request %s: %w", r.id, err)
	}
	return nil
}

// answer records the reply; a request that is unknown or no longer pending
// is ErrUnknownPermission, with the store's account of it.
func (b storeApprovals) answer(ctx context.Context, id string, r Reply) error {
	_, err := b.st.AnswerApproval(ctx, id, storage.Answer{Allow: r.Allow, Remember: r.Remember, Network: r.Network, Reason: r.Reason}, "user")
	switch {
	case errors.Is(err, storage.ErrNotFound) || errors.Is(err, storage.ErrNotPending):
		return fmt.Errorf("%w: %w", ErrUnknownPermission, err)
	case err != nil:
		return fmt.Errorf("permission request %s: %w", id, err)
	}
	return nil
}

func (b storeApprovals) answered(ctx context.Context, id string) (Reply, bool, error) {
	a, err := b.st.Approval(ctx, id)
	if err != nil {
		return Reply{}, false, err
	}
	return replyOf(a)
}

func (b storeApprovals) withdraw(ctx context.Context, id, by string) (Reply, bool, error) {
	a, err := b.st.WithdrawApproval(ctx, id, by)
	if err != nil {
		return Reply{}, false, err
	}
	return replyOf(a)
}

func (storeApprovals) shared() bool { return true }

// replyOf is the answer a stored request holds, if it was answered.
func replyOf(a storage.Approval) (Reply, bool, error) {
	if a.State != storage.ApprovalAnswered {
		return Reply{}, false, nil
	}
	return Reply{Allow: a.Answer.Allow, Remember: a.Answer.Remember, Network: a.Answer.Network, Reason: a.Answer.Reason}, true, nil
}

// approvalEndNotifier is implemented by stores that tell when a request
// ends in any process (session.Postgres, through LISTEN/NOTIFY): a wait
// then wakes at once rather than at its next poll.
type approvalEndNotifier interface {
	ApprovalEnded(id string) (ended <-chan struct{}, stop func(), ok bool)
}

// ended is the channel closed when request id ends, when the store tells;
// nil otherwise (the wait polls).
func (b storeApprovals) ended(id string) (<-chan struct{}, func()) {
	if n, ok := b.st.(approvalEndNotifier); ok {
		if ch, stop, ok := n.ApprovalEnded(id); ok {
			return ch, stop
		}
	}
	return nil, func() {}
}
