package event

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"time"
)

// ErrNothingToRepair: the audit log ends with a complete record.
var ErrNothingToRepair = errors.New("the audit log ends with a complete record: nothing to repair")

// RepairAudit sets aside a torn last record — the incomplete final line a
// power loss can leave, since each record is written with one write call —
// so that the log can be continued: the bytes after the last complete line
// move to a file beside it (path + ".torn-" + the time), kept as evidence,
// and the log is cut there. Everything before must verify: a chain broken
// anywhere else is evidence of tampering, not damage, and is refused. It
// returns the path of the file set aside.
func RepairAudit(path string, now time.Time) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("audit log %s: %w", path, err)
	}
	end := bytes.LastIndexByte(data, '\n') + 1
	if end == len(data) {
		return "", fmt.Errorf("audit log %s: %w", path, ErrNothingToRepair)
	}
	if _, err := VerifyAudit(bytes.NewReader(data[:end])); err != nil {
		return "", fmt.Errorf("audit log %s: the records before the torn one do not verify, so it is not repaired: %w", path, err)
	}
	aside := fmt.Sprintf("%s.torn-%d", path, now.Unix())
	if err := writeSynced(aside, data[end:]); err != nil {
		return "", fmt.Errorf("audit log %s: set aside the torn record: %w", path, err)
	}
	if err := truncateSynced(path, int64(end)); err != nil {
		return "", fmt.Errorf("audit log %s: cut the torn record (kept in %s): %w", path, aside, err)
	}
	return aside, nil
}

func writeSynced(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func truncateSynced(path string, size int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if err := f.Truncate(size); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
