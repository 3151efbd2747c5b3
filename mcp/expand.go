package mcp

import (
	"fmt"
	"strings"
)

// LookupFunc reads one environment variable, as os.LookupEnv does. It is
// the seam through which the package reads the environment: nothing here
// calls os.Getenv.
type LookupFunc func(name string) (string, bool)

// expand replaces ${VAR} and ${VAR:-default} in s, the syntax of the
// .mcp.json files other tools write. ${VAR:-default} uses default when VAR
// is unset or empty, as in the shell. A variable that is unset and has no
// default is an error naming it: starting a server with an empty token
// would only fail later, and less clearly. A "$" not followed by "{" is
// kept as is, so "$HOME" stays literal (it is not expanded by the other
// tools either).
func expand(s string, lookup LookupFunc) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		rest := s[i+2:]
		j := strings.IndexByte(rest, '}')
		if j < 0 {
			return "", fmt.Errorf("unterminated ${ in %q", s)
		}
		name, def, hasDef := strings.Cut(rest[:j], ":-")
		if !validVarName(name) {
			return "", fmt.Errorf("invalid variable name %q in ${...}", name)
		}
		v, ok := "", false
		if lookup != nil {
			v, ok = lookup(name)
		}
		switch {
		case hasDef && v == "":
			v = def
		case !ok:
			return "", fmt.Errorf("environment variable %s is not set (write ${%s:-default} for a default)", name, name)
		}
		b.WriteString(v)
		s = rest[j+1:]
	}
}

// validVarName: a shell variable name, [A-Za-z_][A-Za-z0-9_]*.
func validVarName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range []byte(s) {
		switch {
		case c == '_', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
