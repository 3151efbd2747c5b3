package app

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/moteur/moteur/atomicfile"
	"github.com/moteur/moteur/atrest"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/orgpolicy"
)

// keyIDFile, in the data directory, names the at-rest key that protects
// it (its id, never the key). It is how a missing or replaced key is told
// from a first run: creating a new key then would leave every sealed
// checkpoint unreadable and every keyed audit log unverifiable.
const keyIDFile = "key-id"

// AtRestKey returns the at-rest key of the data directory home, where the
// organisation policy the environment names puts it (see loadKey). Only
// commands that write pass create: those that read never make a key. Its
// refusals are in the environment's language (MOTEUR_LANG).
func AtRestKey(env func(string) string, home string, create bool) (*atrest.Key, error) {
	return atRestKey(env, home, create, resolveLang("", "", env))
}

// atRestKey is AtRestKey with its refusals in lang.
func atRestKey(env func(string) string, home string, create bool, lang i18n.Lang) (*atrest.Key, error) {
	path, explicit := orgpolicy.PathFromEnv(env)
	pol, err := orgpolicy.Load(path, explicit)
	if err != nil {
		return nil, err
	}
	return loadKey(env, pol, home, create, lang)
}

// keyPath is where the at-rest key lives: the organisation policy's
// key_file (%u: the user's name) when it names one, else the user's
// configuration directory. Never inside the data directory home.
func keyPath(env func(string) string, pol *orgpolicy.Policy, home string, lang i18n.Lang) (string, error) {
	var path string
	switch {
	case pol != nil && pol.KeyFile != "":
		user := env("USER")
		if user == "" {
			user = env("LOGNAME")
		}
		if strings.Contains(pol.KeyFile, "%u") && user == "" {
			return "", errors.New(i18n.Trf(lang, "key_file %s of the organisation policy %s names the user (%%u), but neither USER nor LOGNAME is set", pol.KeyFile, pol.Path))
		}
		path = strings.ReplaceAll(pol.KeyFile, "%u", user)
	default:
		dir := userConfigDir(env)
		if dir == "" {
			return "", errors.New(i18n.Tr(lang, "cannot locate the at-rest key: set XDG_CONFIG_HOME or HOME, or key_file in the organisation policy"))
		}
		path = atrest.DefaultPath(dir)
	}
	if err := atrest.CheckOutside(path, home); err != nil {
		return "", err
	}
	return path, nil
}

// loadKey returns the at-rest key of the data directory home. On first use
// (no key file, no key id in home) it creates the key when create is set;
// otherwise the error wraps atrest.ErrNoKey. A data directory whose key is
// missing or is another key is refused, naming the key file and what
// depends on it.
func loadKey(env func(string) string, pol *orgpolicy.Policy, home string, create bool, lang i18n.Lang) (*atrest.Key, error) {
	path, err := keyPath(env, pol, home, lang)
	if err != nil {
		return nil, err
	}
	want, err := os.ReadFile(filepath.Join(home, keyIDFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("at-rest key id: %w", err)
	}
	wantID := string(bytes.TrimSpace(want))
	k, err := atrest.Load(path)
	switch {
	case errors.Is(err, atrest.ErrNoKey) && wantID != "":
		return nil, errors.New(i18n.Trf(lang, "the data directory %s is protected by the at-rest key %s, but %s does not exist: "+
			"restore that file from a backup (without it, checkpoints cannot be restored and audit logs cannot be verified)", home, wantID, path))
	case errors.Is(err, atrest.ErrNoKey) && create:
		if k, err = atrest.LoadOrCreate(path); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	}
	if wantID != "" && wantID != k.ID() {
		return nil, errors.New(i18n.Trf(lang, "the at-rest key %s is key %s, but the data directory %s is protected by key %s: put the right key back at %s",
			path, k.ID(), home, wantID, path))
	}
	if wantID == "" && create {
		if err := os.MkdirAll(home, 0o700); err != nil {
			return nil, fmt.Errorf("data directory: %w", err)
		}
		err := atomicfile.WriteFunc(filepath.Join(home, keyIDFile), 0o600, func(w io.Writer) error {
			_, err := io.WriteString(w, k.ID()+"\n")
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("at-rest key id: %w", err)
		}
	}
	return k, nil
}
