// Package apikey owns the API keys of `moteur serve`: their table in
// Moteur's database file (moteur.db, versioned apart in apikey_migrations),
// their scope (the knowledge bases and agents a key may use, whether it may
// wait for approvals) and their verification.
//
// A key's secret is shown once, when it is made: only its SHA-256 is
// stored, so a copy of the database gives no usable key. SHA-256 without
// salt or stretching is enough here because the secret is 256 random bits,
// not a password: there is nothing to guess. Verification compares hashes
// in constant time.
//
// Concurrency: a *Store is safe for use by many goroutines, and several
// processes, on one host or several, may open the same database at once
// (package sidetable: serialised write transactions, each migration applied
// once).
package apikey

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Sentinel errors. Verify returns ErrInvalid alone, saying nothing of why
// a secret was refused.
var (
	ErrInvalid  = errors.New("invalid API key")
	ErrNotFound = errors.New("no such API key")
	ErrExists   = errors.New("API key already exists")
)

// Scope limits what a key may reach.
type Scope struct {
	// Bases are the knowledge bases' names; empty: every base.
	Bases []string
	// Agents are the agents' ids; empty: every agent.
	Agents []string
	// Wait lets a request wait for a person's approval (the OpenAI door
	// otherwise refuses a call that needs one).
	Wait bool
}

// Key is a stored key, without its secret.
type Key struct {
	ID      string
	Name    string
	Scope   Scope
	Created time.Time
}

// AllowsBase reports whether the key may use the knowledge base name.
func (k Key) AllowsBase(name string) bool {
	return len(k.Scope.Bases) == 0 || slices.Contains(k.Scope.Bases, name)
}

// AllowsAgent reports whether the key may use the agent id.
func (k Key) AllowsAgent(id string) bool {
	return len(k.Scope.Agents) == 0 || slices.Contains(k.Scope.Agents, id)
}

// keyJSON is Key on the wire: the scope's fields beside the key's, and
// empty lists as [] (every base, every agent), never null.
type keyJSON struct {
	ID      string    `json:"id"`
	Name    string    `json:"name"`
	Bases   []string  `json:"bases"`
	Agents  []string  `json:"agents"`
	Wait    bool      `json:"wait"`
	Created time.Time `json:"created"`
}

// MarshalJSON writes id, name, bases, agents, wait and created.
func (k Key) MarshalJSON() ([]byte, error) {
	return json.Marshal(keyJSON{ID: k.ID, Name: k.Name, Bases: nonNil(k.Scope.Bases), Agents: nonNil(k.Scope.Agents),
		Wait: k.Scope.Wait, Created: k.Created})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (k *Key) UnmarshalJSON(data []byte) error {
	var w keyJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*k = Key{ID: w.ID, Name: w.Name, Scope: Scope{Bases: w.Bases, Agents: w.Agents, Wait: w.Wait}, Created: w.Created}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// MaxNameLen bounds a key's name, in characters.
const MaxNameLen = 100

// checkName refuses an empty or unprintable name.
func checkName(name string) error {
	switch {
	case name == "":
		return errors.New("key name: required")
	case !utf8.ValidString(name):
		return errors.New("key name: not valid UTF-8")
	case utf8.RuneCountInString(name) > MaxNameLen:
		return fmt.Errorf("key name: longer than %d characters", MaxNameLen)
	case name != strings.TrimSpace(name) || strings.ContainsFunc(name, isControl):
		return errors.New("key name: no leading or trailing space, no control character")
	}
	return nil
}

// checkScope refuses empty, unprintable or repeated names in the lists.
func checkScope(sc Scope) error {
	for field, list := range map[string][]string{"bases": sc.Bases, "agents": sc.Agents} {
		seen := map[string]bool{}
		for i, v := range list {
			switch {
			case strings.TrimSpace(v) == "":
				return fmt.Errorf("key scope: %s[%d]: empty name", field, i)
			case strings.ContainsFunc(v, isControl):
				return fmt.Errorf("key scope: %s[%d]: contains a control character", field, i)
			case seen[v]:
				return fmt.Errorf("key scope: %s[%d]: %q is listed twice", field, i, v)
			}
			seen[v] = true
		}
	}
	return nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }
