package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/moteur/moteur/atomicfile"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/session"
)

// The transcript of a session (TranscriptPath) is a plain copy of its
// stored events, one JSON line each, that hooks and people read. It is
// written after the store, so a crash can leave it behind (an event
// missing, a torn last line); it is also a plain file anyone may edit.
// Before a session's new events are appended to it, it is caught up with
// the store: only its last line is read, and only the events after it are
// encoded, so that continuing a long session costs nothing for its past.

// maxTranscriptLine bounds how far back the end of a transcript is looked
// for: one event's line (a prompt is at most 16 MiB). A longer last line
// counts as damage.
const maxTranscriptLine = 64 << 20

// eventLoader reads a session's stored events after a seq (session.Store).
type eventLoader interface {
	LoadFrom(ctx context.Context, sessionID string, after uint64) ([]event.Event, error)
}

// catchUpTranscript makes the transcript at path hold the events 1 to last
// of session id that st stores. A transcript behind the store gets the
// missing events appended; a torn last line is cut off first. One whose
// last line is not an event of this session, or is an event the store does
// not have yet, is rebuilt from the store, and warning says so.
func catchUpTranscript(ctx context.Context, path, id string, last uint64, st eventLoader, lang i18n.Lang) (warning string, err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	seq, damage, err := transcriptEnd(path, id, last, lang)
	if err != nil {
		return "", err
	}
	if damage != "" {
		if err := rebuildTranscript(ctx, path, id, st); err != nil {
			return "", err
		}
		return i18n.Trf(lang, "session %s: its transcript %s %s: rebuilt from the store", id, path, damage), nil
	}
	if seq == last {
		return "", nil
	}
	evs, err := st.LoadFrom(ctx, id, seq)
	if err != nil {
		return "", err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return "", err
	}
	w := bufio.NewWriter(f)
	err = writeEvents(w, evs)
	if err == nil {
		err = w.Flush()
	}
	return "", errors.Join(err, f.Close())
}

// transcriptEnd reads the seq of the transcript's last event (0 for a
// missing or empty file), after cutting off a torn last line. damage says
// what is wrong with a last line that cannot be caught up from.
func transcriptEnd(path, id string, last uint64, lang i18n.Lang) (seq uint64, damage string, err error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, "", nil
	}
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return 0, "", err
	}
	end := info.Size()
	if end == 0 {
		return 0, "", nil
	}
	nl, found, err := lastNewline(f, end)
	switch {
	case err != nil:
		return 0, "", err
	case !found && end > maxTranscriptLine:
		return 0, i18n.Trf(lang, "ends in a line longer than %d MiB", maxTranscriptLine>>20), nil
	case nl+1 < end:
		// A torn last line: the event is in the store, and is appended
		// again below.
		if err := f.Truncate(nl + 1); err != nil {
			return 0, "", fmt.Errorf("cut the torn last line: %w", err)
		}
		end = nl + 1
	}
	if end <= 0 {
		return 0, "", nil
	}
	start, found, err := lastNewline(f, end-1)
	switch {
	case err != nil:
		return 0, "", err
	case !found && end-1 > maxTranscriptLine:
		return 0, i18n.Trf(lang, "ends in a line longer than %d MiB", maxTranscriptLine>>20), nil
	}
	line := make([]byte, end-1-(start+1))
	if _, err := f.ReadAt(line, start+1); err != nil {
		return 0, "", err
	}
	e, err := event.Decode(line)
	switch {
	case err != nil:
		return 0, i18n.Tr(lang, "ends in a line that is not an event"), nil
	case e.SessionID != id:
		return 0, i18n.Trf(lang, "ends in an event of session %q", e.SessionID), nil
	case e.Seq == 0 || e.Ephemeral:
		return 0, i18n.Tr(lang, "ends in an event that is never stored"), nil
	case e.Seq > last:
		return 0, i18n.Trf(lang, "ends at seq %d, and the store at seq %d", e.Seq, last), nil
	}
	return e.Seq, "", nil
}

// lastNewline is the offset of the last '\n' before end in f, read
// backwards, at most maxTranscriptLine bytes back; found is false when
// there is none there (pos is then -1: the line starts the file, if end
// is within reach).
func lastNewline(f *os.File, end int64) (pos int64, found bool, err error) {
	const chunk = 64 << 10
	buf := make([]byte, chunk)
	for at := end; at > 0 && end-at < maxTranscriptLine; {
		n := min(int64(chunk), at)
		at -= n
		if _, err := f.ReadAt(buf[:n], at); err != nil {
			return 0, false, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return at + int64(i), true, nil
		}
	}
	return -1, false, nil
}

// rebuildTranscript replaces the transcript at path with every event st
// stores of session id (none for a session it does not have).
func rebuildTranscript(ctx context.Context, path, id string, st eventLoader) error {
	evs, err := st.LoadFrom(ctx, id, 0)
	if err != nil && !errors.Is(err, session.ErrNotFound) {
		return err
	}
	return atomicfile.WriteFunc(path, 0o600, func(w io.Writer) error { return writeEvents(w, evs) })
}

// writeEvents writes evs to w as the transcript holds them: each the line
// of json.Marshal, as event.JSONLSink writes it.
func writeEvents(w io.Writer, evs []event.Event) error {
	for _, e := range evs {
		b, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("encode event %d: %w", e.Seq, err)
		}
		if _, err := w.Write(append(b, '\n')); err != nil {
			return err
		}
	}
	return nil
}
