package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/moteur/moteur/session"
)

// RemoveSession removes session id from the store st of the data
// directory home, then its transcript and its web snapshots. Its audit log is kept: it is the
// proof of what the agent did, and Moteur never deletes it. A session in
// use by a live process is refused (session.ErrInUse), an unknown one is
// session.ErrNotFound. auditKept reports whether an audit log remains.
func RemoveSession(ctx context.Context, st session.Store, db Database, id string) (auditKept bool, err error) {
	home := db.Home
	if err := checkSessionID(id); err != nil {
		return false, err
	}
	if err := st.Delete(ctx, id); err != nil {
		return false, err
	}
	if err := os.Remove(TranscriptPath(home, id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("session %s removed, but not its transcript: %w", id, err)
	}
	snaps := db.Snapshots()
	if err := errors.Join(snaps.RemoveSession(ctx, id), snaps.Close()); err != nil {
		return false, fmt.Errorf("session %s removed, but not its web snapshots: %w", id, err)
	}
	_, statErr := os.Stat(AuditPath(home, id))
	return statErr == nil, nil
}
