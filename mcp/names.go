package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// Tool names. An MCP tool is offered to the model as mcp_<server>_<tool>:
// providers accept only [A-Za-z0-9_-] and at most 64 characters, so every
// other character becomes '_', and a name that is too long, or that two
// tools of the session would share once sanitised, ends with a hash of the
// original server and tool names instead (8 hex digits of
// SHA-256(server NUL tool)). The hash depends on those names alone, so a
// tool keeps its name across sessions and processes as long as it does not
// start or stop colliding with another.
const (
	toolPrefix     = "mcp_"
	maxToolNameLen = 64
	shortHash      = 8
	longHash       = 16 // when a hashed name still meets another name
)

// toolKey is a tool by its original names.
type toolKey struct{ server, tool string }

func (k toolKey) String() string { return fmt.Sprintf("%s/%s", k.server, k.tool) }

// sanitize replaces every character providers refuse with '_'.
func sanitize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, c := range s {
		if validNameChar(c) {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

func validNameChar(c rune) bool {
	return c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func baseName(k toolKey) string { return toolPrefix + sanitize(k.server) + "_" + sanitize(k.tool) }

// hashed is base cut to fit, then "_" and n hex digits of the key's hash.
func hashed(base string, k toolKey, n int) string {
	sum := sha256.Sum256([]byte(k.server + "\x00" + k.tool))
	h := hex.EncodeToString(sum[:])[:n]
	if max := maxToolNameLen - 1 - n; len(base) > max {
		base = base[:max] // ASCII after sanitize: any cut is a character boundary
	}
	return base + "_" + h
}

// ToolName is the name the model sees for a server's tool when no other
// tool of the session takes the same sanitised name.
func ToolName(server, tool string) string {
	k := toolKey{server, tool}
	if b := baseName(k); len(b) <= maxToolNameLen {
		return b
	}
	return hashed(baseName(k), k, shortHash)
}

// assignNames names every key. keys must be distinct and non-empty tools.
// Names are unique; a key that cannot get one (only a crafted name could
// meet a 16-digit hash) is returned in dropped, which lists them sorted.
func assignNames(keys []toolKey) (names map[toolKey]string, dropped []toolKey) {
	groups := map[string][]toolKey{}
	for _, k := range keys {
		b := baseName(k)
		groups[b] = append(groups[b], k)
	}
	names = make(map[toolKey]string, len(keys))
	suffixed := map[toolKey]bool{}
	for b, ks := range groups {
		for _, k := range ks {
			if len(ks) > 1 || len(b) > maxToolNameLen {
				names[k], suffixed[k] = hashed(b, k, shortHash), true
			} else {
				names[k] = b
			}
		}
	}
	// A hashed name may still meet another tool's name, if that tool's own
	// name was written to: the hashed ones take a longer hash.
	for _, ks := range clashes(names) {
		for _, k := range ks {
			if suffixed[k] {
				names[k] = hashed(baseName(k), k, longHash)
			}
		}
	}
	for _, ks := range clashes(names) {
		slices.SortFunc(ks, compareKeys)
		for _, k := range ks[1:] {
			delete(names, k)
			dropped = append(dropped, k)
		}
	}
	slices.SortFunc(dropped, compareKeys)
	return names, dropped
}

// clashes returns the keys that share a name, by name.
func clashes(names map[toolKey]string) map[string][]toolKey {
	by := map[string][]toolKey{}
	for k, n := range names {
		by[n] = append(by[n], k)
	}
	for n, ks := range by {
		if len(ks) < 2 {
			delete(by, n)
		}
	}
	return by
}

func compareKeys(a, b toolKey) int {
	if c := strings.Compare(a.server, b.server); c != 0 {
		return c
	}
	return strings.Compare(a.tool, b.tool)
}
