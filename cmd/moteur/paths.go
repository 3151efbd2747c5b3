package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/moteur/moteur/event"
)

// dataDir is $MOTEUR_HOME, default $XDG_DATA_HOME/moteur, with
// XDG_DATA_HOME defaulting to ~/.local/share. It is made absolute so that
// messages name the file unambiguously.
func dataDir(env func(string) string) (string, error) {
	dir := env("MOTEUR_HOME")
	if dir == "" {
		base := env("XDG_DATA_HOME")
		// The XDG spec says relative values are invalid and to be ignored.
		if base == "" || !filepath.IsAbs(base) {
			home := env("HOME")
			if home == "" {
				return "", errors.New("cannot locate the data directory: set MOTEUR_HOME or HOME")
			}
			base = filepath.Join(home, ".local", "share")
		}
		dir = filepath.Join(base, "moteur")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("data directory %s: %w", dir, err)
	}
	return abs, nil
}

// sessionLogPath is where a session's event log lives.
func sessionLogPath(dataDir, sessionID string) string {
	return filepath.Join(dataDir, "sessions", sessionID+".jsonl")
}

// createSessionLog creates the event log of a new session: directories
// 0700 and the file 0600, since the log holds everything the agent read and
// said. The file must not exist yet: this version cannot resume a session,
// and appending a second run to a log would restart its seq numbers, which
// readers take for corruption.
func createSessionLog(path string) (*event.JSONLSink, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create session log directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("session log %s already exists: resuming a session is not supported yet", path)
	}
	if err != nil {
		return nil, fmt.Errorf("create session log: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("create session log: %w", err)
	}
	sink, err := event.OpenJSONL(event.JSONLConfig{Path: path, Sync: true})
	if err != nil {
		return nil, fmt.Errorf("session log: %w", err)
	}
	return sink, nil
}
