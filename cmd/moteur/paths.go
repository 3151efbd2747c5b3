package main

import (
	"errors"
	"fmt"
	"path/filepath"
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
