package app

import (
	"errors"
	"os"
	"testing"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/session"
)

func TestLiveSessionSinksAuditFirstAndReleasesTheLease(t *testing.T) {
	e := newTestEnv(t)
	ls, err := openLiveSession(t.Context(), e.env, Database{Home: e.home()}, "s-live", nil, i18n.EN)
	if err != nil {
		t.Fatal(err)
	}
	sinks := ls.sinks()
	if len(sinks) != 3 {
		t.Fatalf("%d sinks, want audit, store, transcript", len(sinks))
	}
	if _, ok := sinks[0].(*event.AuditSink); !ok {
		t.Errorf("sink 0 is %T, want the audit log: nothing is stored that it did not record", sinks[0])
	}
	if s, ok := sinks[1].(session.Sink); !ok || s.Heads != ls.audit {
		t.Errorf("sink 1 is %T, want the store, given its heads by the audit log", sinks[1])
	}
	if _, ok := sinks[2].(*event.JSONLSink); !ok {
		t.Errorf("sink 2 is %T, want the transcript", sinks[2])
	}
	// Another live process is refused while this one holds the session.
	other, err := session.OpenSQLite(t.Context(), session.SQLiteConfig{Path: session.DefaultPath(e.home()), PID: os.Getppid()})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Acquire(t.Context(), "s-live"); err == nil {
		t.Fatal("another process acquired a session in use")
	}
	if err := ls.close(); err != nil {
		t.Fatal(err)
	}
	l, err := other.Acquire(t.Context(), "s-live")
	if err != nil {
		t.Fatalf("lease not released by close: %v", err)
	}
	_ = l.Release()
	// Nothing was written: the audit log this process created is gone.
	if _, err := os.Stat(AuditPath(e.home(), "s-live")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("empty audit log left behind: %v", err)
	}
}
