package app

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moteur/moteur/atrest"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/orgpolicy"
)

func TestLoadKeyCreatesOnFirstUseAndRefusesAMissingOrOtherKey(t *testing.T) {
	cfg, home := t.TempDir(), t.TempDir()
	env := func(k string) string {
		return map[string]string{"XDG_CONFIG_HOME": cfg, "HOME": "/nonexistent"}[k]
	}
	if _, err := loadKey(env, nil, home, false, i18n.EN); !errors.Is(err, atrest.ErrNoKey) {
		t.Fatalf("read-only first use: %v, want ErrNoKey (nothing created)", err)
	}
	k, err := loadKey(env, nil, home, true, i18n.EN)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(cfg, "moteur", atrest.FileName)
	if k.Path() != path {
		t.Fatalf("key at %s, want %s", k.Path(), path)
	}
	again, err := loadKey(env, nil, home, false, i18n.EN)
	if err != nil || !again.Equal(k) {
		t.Fatalf("second load: %v", err)
	}
	// The key gone: the data directory still names it, so nothing new is
	// made in its place, and the message names the file.
	if err := os.Rename(path, path+".bak"); err != nil {
		t.Fatal(err)
	}
	_, err = loadKey(env, nil, home, true, i18n.EN)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), k.ID()) {
		t.Fatalf("missing key: %v, want a refusal naming %s and key %s", err, path, k.ID())
	}
	if _, serr := os.Stat(path); !errors.Is(serr, os.ErrNotExist) {
		t.Fatal("a new key was created in place of the missing one")
	}
	// Another key in its place is refused too.
	if _, err := atrest.LoadOrCreate(path); err != nil {
		t.Fatal(err)
	}
	if _, err := loadKey(env, nil, home, true, i18n.EN); err == nil || !strings.Contains(err.Error(), "put the right key back") {
		t.Fatalf("other key: %v, want a refusal", err)
	}
}

func TestKeyPathFollowsThePolicyAndStaysOutOfTheDataDirectory(t *testing.T) {
	home := t.TempDir()
	env := func(k string) string { return map[string]string{"USER": "alice", "HOME": "/home/alice"}[k] }
	pol := &orgpolicy.Policy{Path: "/etc/moteur/policy.yaml", KeyFile: "/srv/keys/%u.key"}
	p, err := keyPath(env, pol, home, i18n.EN)
	if err != nil || p != "/srv/keys/alice.key" {
		t.Fatalf("policy key path: %q, %v", p, err)
	}
	pol.KeyFile = filepath.Join(home, "k")
	if _, err := keyPath(env, pol, home, i18n.EN); !errors.Is(err, atrest.ErrBadKey) {
		t.Fatalf("key in the data directory: %v, want ErrBadKey", err)
	}
}
