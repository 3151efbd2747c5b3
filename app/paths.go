package app

import (
	"errors"
	"fmt"
	"path/filepath"
)

// DataDir is $MOTEUR_HOME, default $XDG_DATA_HOME/moteur, with
// XDG_DATA_HOME defaulting to ~/.local/share. It is made absolute so that
// messages name the file unambiguously.
func DataDir(env func(string) string) (string, error) {
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

// userConfigDir is $XDG_CONFIG_HOME/moteur, XDG_CONFIG_HOME defaulting to
// ~/.config; "" when neither is known (no user configuration then).
func userConfigDir(env func(string) string) string {
	base := env("XDG_CONFIG_HOME")
	// The XDG spec says relative values are invalid and to be ignored.
	if base == "" || !filepath.IsAbs(base) {
		home := env("HOME")
		if home == "" {
			return ""
		}
		base = filepath.Join(home, ".config")
	}
	return filepath.Join(base, "moteur")
}

// AuditDir is the directory of the audit logs in the data directory home.
func AuditDir(home string) string { return filepath.Join(home, "audit") }

// AuditPath is the audit log of a session.
func AuditPath(home, sessionID string) string {
	return filepath.Join(AuditDir(home), sessionID+".jsonl")
}

// TranscriptPath is the transcript of a session.
func TranscriptPath(home, sessionID string) string {
	return filepath.Join(home, "transcripts", sessionID+".jsonl")
}

// CheckpointDir is the directory of the checkpoints.
func CheckpointDir(home string) string { return filepath.Join(home, "checkpoints") }
