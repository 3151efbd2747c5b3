package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/moteur/moteur/atrest"
	"github.com/moteur/moteur/checkpoint"
)

// openCheckpoints opens the store of the content files had before a tool
// changed them (CheckpointDir), which rewinds restore from, sealed under
// the at-rest key of home (loadKey; create as there: only what runs turns
// makes a key). A data directory whose key is missing or replaced is
// refused with loadKey's message, which names the key file.
//
// Without a key where create is not set, and none named by the data
// directory (a directory only earlier versions used, or none at all),
// nothing in the store was ever sealed: it is opened in clear, so that
// their sessions still rewind. What such a rewind saves stays in clear
// until the first run makes the key; that run's store then seals every
// clear blob (SealClear), as every store opened with a key does, one
// directory read when there is nothing left to seal. A failure there is
// only a warning: the clear blobs stay readable.
func (s *Settings) openCheckpoints(ctx context.Context, create bool) (cps *checkpoint.Store, warning string, err error) {
	home := s.DataDir()
	key, err := loadKey(s.opts.Env, s.Config.Policy, home, create, s.Lang)
	cfg := checkpoint.Config{Dir: CheckpointDir(home), Key: key}
	switch {
	case err != nil && !create && errors.Is(err, atrest.ErrNoKey):
		// loadKey says ErrNoKey only when the data directory names no key.
		cfg.Clear = true
	case err != nil:
		return nil, "", err
	}
	if cps, err = checkpoint.Open(cfg); err != nil {
		return nil, "", fmt.Errorf("checkpoints: %w", err)
	}
	if key != nil {
		if _, err := cps.SealClear(ctx); err != nil {
			warning = err.Error()
		}
	}
	return cps, warning, nil
}
