package event

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"
)

// ErrNothingToRepair: the audit log ends with a complete record, and
// verifies.
var ErrNothingToRepair = errors.New("the audit log ends with a complete record: nothing to repair")

// ErrAuditTampered: a record that is not a torn last one fails
// verification. That is evidence of a change, not damage a power loss
// leaves: RepairAudit repairs nothing, and says where.
var ErrAuditTampered = errors.New("tampered")

// AuditRepair is what RepairAudit did.
type AuditRepair struct {
	// Aside is the file the torn bytes were moved to.
	Aside string
	// Rebuilt is the seq of the event whose torn record was written again
	// from the store; 0 when the record was only cut.
	Rebuilt uint64
}

// RepairAudit repairs a torn last record — the incomplete final line a power
// loss can leave, since each record is written with one write call — so
// that the log can be continued. The bytes after the last complete line are
// first copied to a file beside it (path + ".torn-" + the time), kept as
// evidence. Everything before must verify against check (VerifyAudit):
// a chain broken anywhere else is evidence of tampering, not damage, and is
// refused with an error wrapping ErrAuditTampered that locates the first
// bad record, as is a keyed log without check.Key. A log with no torn
// record is verified too: ErrNothingToRepair only when it verifies.
//
// The torn record is normally of an event the store never got (the log is
// written first): it is cut. When instead the store holds its event (one of
// stored, the session's stored events) and the head of its record, the
// record was whole when the store took it: it is written again from that
// event, in place of the torn bytes, which must begin it, and only if its
// MAC, computed with the key, is the head the store kept — which
// authenticates it. A log one record ahead of the store is accepted: the
// next continuation stores that record.
func RepairAudit(path string, check AuditCheck, stored []Event, now time.Time) (AuditRepair, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return AuditRepair{}, fmt.Errorf("audit log %s: %w", path, err)
	}
	end := bytes.LastIndexByte(data, '\n') + 1
	if end == len(data) {
		// Whole lines only: nothing a power loss explains. Saying
		// "nothing to repair" of a log that fails would hide a change.
		if _, err := VerifyAudit(bytes.NewReader(data), check); err != nil && !errors.Is(err, ErrAuditAhead) {
			return AuditRepair{}, tamperedError(path, err)
		}
		return AuditRepair{}, fmt.Errorf("audit log %s: %w", path, ErrNothingToRepair)
	}
	torn := data[end:]
	rep, err := VerifyAudit(bytes.NewReader(data[:end]), check)
	var rebuilt []byte
	var seq uint64
	if errors.Is(err, ErrAuditShort) {
		if rebuilt, seq = rebuildRecord(check, rep, stored); rebuilt != nil && bytes.HasPrefix(rebuilt, torn) {
			err = nil
		} else {
			err = fmt.Errorf("%w; the store's event does not rebuild the torn record", err)
		}
	}
	if err != nil && !errors.Is(err, ErrAuditAhead) && !errors.Is(err, ErrAuditShort) {
		return AuditRepair{}, tamperedError(path, err)
	}
	if err != nil && !errors.Is(err, ErrAuditAhead) {
		return AuditRepair{}, fmt.Errorf("audit log %s: the records before the torn one do not verify, so it is not repaired: %w", path, err)
	}
	if rep.Records > rep.Unkeyed && !rep.Authenticated {
		return AuditRepair{}, fmt.Errorf("audit log %s: the records before the torn one cannot be authenticated without the at-rest key, so it is not repaired", path)
	}
	aside := fmt.Sprintf("%s.torn-%d", path, now.Unix())
	if err := writeSynced(aside, torn); err != nil {
		return AuditRepair{}, fmt.Errorf("audit log %s: set aside the torn record: %w", path, err)
	}
	if rebuilt != nil {
		// Over the torn bytes, which begin it: a crash meanwhile leaves a
		// torn record again, repaired the same way.
		if err := writeAtSynced(path, rebuilt, int64(end)); err != nil {
			return AuditRepair{}, fmt.Errorf("audit log %s: rewrite the torn record (kept in %s): %w", path, aside, err)
		}
		return AuditRepair{Aside: aside, Rebuilt: seq}, nil
	}
	if err := truncateSynced(path, int64(end)); err != nil {
		return AuditRepair{}, fmt.Errorf("audit log %s: cut the torn record (kept in %s): %w", path, aside, err)
	}
	return AuditRepair{Aside: aside}, nil
}

// tamperedError says that the log at path fails verification where err
// locates it, and that nothing was repaired.
func tamperedError(path string, err error) error {
	var ae *AuditError
	if !errors.As(err, &ae) {
		return fmt.Errorf("audit log %s: %w: it fails verification: %w; nothing was repaired", path, ErrAuditTampered, err)
	}
	// Record i holds the event of seq i+1: the chain starts at 0 with
	// seq 1, a fork's log where its own events do.
	return fmt.Errorf("audit log %s: %w at record %d (line %d, seq %d): %s; nothing was repaired: a repair only sets aside a torn last record, and a change stays as evidence",
		path, ErrAuditTampered, ae.Index, ae.Line, ae.Index+1, ae.Reason)
}

// rebuildRecord writes again the record that follows rep from the store's
// event, when the store holds it with a head, exactly one record is
// missing, and the rebuilt record's MAC is that head. It returns nil
// otherwise.
func rebuildRecord(check AuditCheck, rep AuditReport, stored []Event) ([]byte, uint64) {
	st := check.Store
	seq := rep.Next + 1
	if st == nil || len(check.Key) != AuditKeySize || uint64(len(st.Heads)) != seq || st.Heads[seq-1] == nil {
		return nil, 0
	}
	i := slices.IndexFunc(stored, func(e Event) bool { return e.Seq == seq })
	if i < 0 {
		return nil, 0
	}
	eb, err := json.Marshal(MaskEvent(stored[i]))
	if err != nil {
		return nil, 0
	}
	prev := rep.Head
	if rep.Records == 0 {
		prev = st.startPrev()
	}
	line, mac := appendAuditRecord(nil, nil, hmac.New(sha256.New, check.Key), rep.Next, prev, eb)
	if !hmac.Equal(mac, st.Heads[seq-1]) {
		return nil, 0
	}
	return line, seq
}

// writeSynced creates the file at path, which must not exist, with b.
func writeSynced(path string, b []byte) error {
	return synced(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600, func(f *os.File) error {
		_, err := f.Write(b)
		return err
	})
}

// truncateSynced cuts the file at path to size.
func truncateSynced(path string, size int64) error {
	return synced(path, os.O_WRONLY, 0, func(f *os.File) error { return f.Truncate(size) })
}

// writeAtSynced writes b at off in the file at path and cuts what follows.
func writeAtSynced(path string, b []byte, off int64) error {
	return synced(path, os.O_WRONLY, 0, func(f *os.File) error {
		if _, err := f.WriteAt(b, off); err != nil {
			return err
		}
		return f.Truncate(off + int64(len(b)))
	})
}

// synced opens the file at path, changes it with change, fsyncs it and
// closes it.
func synced(path string, flag int, perm os.FileMode, change func(*os.File) error) error {
	f, err := os.OpenFile(path, flag, perm)
	if err != nil {
		return err
	}
	if err := change(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
