// Package hostmatch owns host lists: the allowlists that say where data may
// be sent (model endpoints, tool destinations). It parses list entries once,
// rejecting anything ambiguous, and answers one question: is this
// destination in the list?
//
// Entries are one of:
//
//   - an exact host name: "api.mistral.ai"
//   - a wildcard: "*.corp.example" matches any subdomain at any depth
//     ("a.corp.example", "a.b.corp.example") but NOT the apex
//     "corp.example" itself; list the apex separately if it is wanted.
//     The apex is excluded because a wildcard usually grants a delegated zone
//     (tenants, services), while the apex is often a different machine.
//   - an IP address: "10.0.0.5", "::1" or "[::1]"
//   - a CIDR range: "10.0.0.0/8", "fd00::/8"
//
// A host, wildcard or address may carry a port ("127.0.0.1:11434",
// "llm.local:8080", "[::1]:8080", "*.corp.example:8443"); the entry then
// allows only that port, and a destination whose port is unknown (a bare
// host, or a URL whose scheme has no default port) does not qualify. Without
// a port, any port is allowed. An IPv6 address takes a port only in brackets:
// "::1:8080" is the address ::1:8080, not ::1 on port 8080.
//
// Host names are case-insensitive and a trailing dot ("api.mistral.ai.") is
// ignored. IPv4-mapped IPv6 addresses ("::ffff:10.0.0.5") are treated as the
// IPv4 address they carry, so they cannot be used to step around an IPv4
// entry, nor fail to match one.
//
// No name is ever resolved. An IP destination matches IP and CIDR entries
// only, and a host name matches host and wildcard entries only. Resolving
// names would make the answer depend on the network at the time of the check
// (a different answer from one call to the next) and would invite DNS
// rebinding: a name that resolves to an allowed address when checked and to
// another one when the connection is made. Callers that need to pin
// addresses must do so at connection time, not here.
package hostmatch

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// List is a parsed host list. The zero value is an empty list that allows
// nothing. A List is immutable and safe for concurrent use.
type List struct {
	entries []entry
}

type kind uint8

const (
	kindHost kind = iota + 1
	kindWildcard
	kindAddr
	kindPrefix
)

type entry struct {
	raw    string // as written (trimmed), for messages
	kind   kind
	host   string // kindHost: the name; kindWildcard: the suffix with its leading dot (".corp.example")
	addr   netip.Addr
	prefix netip.Prefix
	port   uint16 // 0: any port
}

// Parse reads host list entries (see the package documentation for their
// forms). Surrounding white space is trimmed; empty entries are errors, so
// that a stray separator in a configuration file is noticed. Every malformed
// entry is reported, each naming the entry and why.
func Parse(entries []string) (List, error) {
	l := List{entries: make([]entry, 0, len(entries))}
	var errs []error
	for _, raw := range entries {
		e, err := parseEntry(raw)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		l.entries = append(l.entries, e)
	}
	if len(errs) > 0 {
		return List{}, errors.Join(errs...)
	}
	return l, nil
}

// MustParse is Parse for tests and package-level constants: it panics on a
// malformed entry, so never feed it configuration or user input.
func MustParse(entries ...string) List {
	l, err := Parse(entries)
	if err != nil {
		panic(err)
	}
	return l
}

// Empty reports whether the list has no entries (and so allows nothing).
func (l List) Empty() bool { return len(l.entries) == 0 }

// Entries returns the entries as written (trimmed), in order.
func (l List) Entries() []string {
	out := make([]string, len(l.entries))
	for i, e := range l.entries {
		out[i] = e.raw
	}
	return out
}

// Allows reports whether dest is in the list. dest is a host ("api.mistral.ai"),
// a host and port ("llm.local:8080", "[::1]:8080") or a URL
// ("https://api.mistral.ai/v1"); for a URL without an explicit port the port
// is the scheme's default (443 for https and wss, 80 for http and ws).
// Anything that cannot be read unambiguously is not allowed.
func (l List) Allows(dest string) bool {
	_, ok := l.Match(dest)
	return ok
}

// Match is Allows that also returns the entry (as written) that allowed
// dest, for messages. The first matching entry in list order wins.
func (l List) Match(dest string) (entry string, ok bool) {
	if len(l.entries) == 0 {
		return "", false
	}
	d, ok := parseDest(dest)
	if !ok {
		return "", false
	}
	for i := range l.entries {
		e := &l.entries[i]
		if e.port != 0 && e.port != d.port {
			// d.port is 0 when unknown: a port-bound entry needs a known port.
			continue
		}
		switch e.kind {
		case kindHost:
			if !d.isAddr && d.host == e.host {
				return e.raw, true
			}
		case kindWildcard:
			// Strictly longer than the suffix: the apex is not a subdomain.
			if !d.isAddr && len(d.host) > len(e.host) && strings.HasSuffix(d.host, e.host) {
				return e.raw, true
			}
		case kindAddr:
			if d.isAddr && d.addr == e.addr {
				return e.raw, true
			}
		case kindPrefix:
			if d.isAddr && e.prefix.Contains(d.addr) {
				return e.raw, true
			}
		}
	}
	return "", false
}

// parseEntry parses one list entry.
func parseEntry(raw string) (entry, error) {
	s := strings.TrimSpace(raw)
	bad := func(format string, args ...any) (entry, error) {
		return entry{}, fmt.Errorf("hostmatch: entry %q: "+format, append([]any{raw}, args...)...)
	}
	switch {
	case s == "":
		return bad("empty entry")
	case strings.Contains(s, "://"):
		return bad("a URL, not a host: drop the scheme and path (write %q)", urlHostHint(s))
	case strings.ContainsFunc(s, isSpace):
		return bad("contains a space")
	case strings.ContainsAny(s, "@?#\\"):
		return bad("not a host (contains one of @ ? # \\)")
	}
	e := entry{raw: s}

	// CIDR: the only form with a slash.
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			if before, _, _ := strings.Cut(s, "/"); looksLikeAddr(before) {
				return bad("bad prefix: %w", err)
			}
			return bad("not a host or CIDR range (drop any path after the host): %w", err)
		}
		if p.Addr().Zone() != "" {
			return bad("bad prefix: zones are not supported")
		}
		if p.Masked() != p {
			return bad("bad prefix: host bits set (did you mean %s?)", p.Masked())
		}
		e.kind, e.prefix = kindPrefix, unmapPrefix(p)
		return e, nil
	}

	host, port, err := splitHostPort(s)
	if err != nil {
		return bad("%w", err)
	}
	e.port = port

	// An IP address (bracketed or bare IPv6, or IPv4).
	if addr, ok, err := parseAddr(host); ok {
		if err != nil {
			return bad("%w", err)
		}
		e.kind, e.addr = kindAddr, addr
		return e, nil
	}

	host = strings.ToLower(host)
	if rest, ok := strings.CutPrefix(host, "*."); ok {
		rest = strings.TrimSuffix(rest, ".")
		if rest == "" {
			return bad("empty wildcard: write \"*.\" followed by a domain, e.g. \"*.corp.example\"")
		}
		if strings.Contains(rest, "*") {
			return bad("\"*\" is allowed only as a whole first label (\"*.corp.example\")")
		}
		if err := checkHostname(rest); err != nil {
			return bad("%w", err)
		}
		e.kind, e.host = kindWildcard, "."+rest
		return e, nil
	}
	host = strings.TrimSuffix(host, ".")
	if host == "*" {
		return bad("a lone \"*\" would allow every host: list the hosts instead")
	}
	if strings.Contains(host, "*") {
		return bad("\"*\" is allowed only as a whole first label (\"*.corp.example\")")
	}
	if err := checkHostname(host); err != nil {
		return bad("%w", err)
	}
	e.kind, e.host = kindHost, host
	return e, nil
}

// urlHostHint extracts the host[:port] of a URL-shaped entry, to suggest it.
func urlHostHint(s string) string {
	if u, err := url.Parse(s); err == nil && u.Host != "" {
		return strings.ToLower(u.Host)
	}
	_, rest, _ := strings.Cut(s, "://")
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// looksLikeAddr guesses whether s was meant as an IP address, to word errors.
func looksLikeAddr(s string) bool {
	return strings.Contains(s, ":") || s != "" && strings.Trim(s, "0123456789.") == ""
}

// splitHostPort splits "host", "host:port", "[v6]", "[v6]:port" and bare
// IPv6 ("::1", which has several colons and so no port).
func splitHostPort(s string) (host string, port uint16, err error) {
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", 0, errors.New("missing \"]\"")
		}
		host, rest := s[:end+1], s[end+1:]
		if rest == "" {
			return host, 0, nil
		}
		p, ok := strings.CutPrefix(rest, ":")
		if !ok {
			return "", 0, fmt.Errorf("unexpected %q after \"]\"", rest)
		}
		port, err := parsePort(p)
		return host, port, err
	}
	switch strings.Count(s, ":") {
	case 0:
		return s, 0, nil
	case 1:
		h, p, _ := strings.Cut(s, ":")
		if h == "" {
			return "", 0, errors.New("missing host before the port")
		}
		port, err := parsePort(p)
		return h, port, err
	default:
		return s, 0, nil // bare IPv6; parseAddr validates it
	}
}

func parsePort(p string) (uint16, error) {
	if p == "" {
		return 0, errors.New("empty port")
	}
	for _, c := range []byte(p) {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("bad port %q", p)
		}
	}
	n, err := strconv.ParseUint(p, 10, 16)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("bad port %q (want 1-65535)", p)
	}
	return uint16(n), nil
}

// parseAddr reports whether host is (meant as) an IP address: bracketed,
// containing a colon, or parsing as IPv4. ok with a non-nil error means "an
// address, but a bad one".
func parseAddr(host string) (netip.Addr, bool, error) {
	bracketed := strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]")
	if bracketed {
		host = host[1 : len(host)-1]
	}
	if !bracketed && !strings.Contains(host, ":") && strings.Trim(host, "0123456789.") != "" {
		return netip.Addr{}, false, nil // a name: skip ParseAddr and its error allocation
	}
	a, err := netip.ParseAddr(host)
	switch {
	case err == nil:
		if a.Zone() != "" {
			return netip.Addr{}, true, errors.New("IPv6 zones are not supported")
		}
		if bracketed && a.Is4() {
			return netip.Addr{}, true, errors.New("brackets are for IPv6 addresses only")
		}
		return a.Unmap(), true, nil
	case bracketed || strings.Contains(host, ":"):
		return netip.Addr{}, true, fmt.Errorf("bad IP address: %w", err)
	}
	return netip.Addr{}, false, nil
}

// unmapPrefix turns a prefix inside ::ffff:0:0/96 into its IPv4 form, since
// addresses are compared unmapped.
func unmapPrefix(p netip.Prefix) netip.Prefix {
	if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
		return netip.PrefixFrom(a.Unmap(), p.Bits()-96)
	}
	return p
}

// checkHostname validates a lower-cased host name without a trailing dot.
// Only LDH labels (plus "_", seen on internal names) are accepted: anything
// else in a destination would be a parser-differential hazard, and
// internationalised names must be written in their "xn--" form.
func checkHostname(h string) error {
	if h == "" {
		return errors.New("empty host")
	}
	if len(h) > 253 {
		return errors.New("host name longer than 253 characters")
	}
	if strings.HasPrefix(h, ".") || strings.HasSuffix(h, ".") || strings.Contains(h, "..") {
		return errors.New("empty label (\"..\" or a leading dot)")
	}
	for rest := h; rest != ""; {
		label, after, _ := strings.Cut(rest, ".")
		rest = after
		if len(label) > 63 {
			return fmt.Errorf("label %q longer than 63 characters", label)
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				if c >= 0x80 {
					return errors.New("non-ASCII host: write the \"xn--\" (punycode) form")
				}
				return fmt.Errorf("invalid character %q", c)
			}
		}
	}
	// A numeric last label is no host name, but resolvers may read it as an
	// address in a legacy form ("127.1", "2130706433"): refuse the ambiguity.
	last := h[strings.LastIndexByte(h, '.')+1:]
	if strings.Trim(last, "0123456789") == "" || strings.HasPrefix(last, "0x") {
		return errors.New("looks like an IP address but is not a valid one")
	}
	return nil
}

func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f' || r == 0x85 || r == 0xA0 ||
		(r >= 0x2000 && r <= 0x200B) || r == 0x2028 || r == 0x2029 || r == 0x202F || r == 0x205F || r == 0x3000 || r == 0xFEFF
}

// dest is a parsed destination.
type dest struct {
	host   string // lower-cased, no trailing dot (host names only)
	addr   netip.Addr
	isAddr bool
	port   uint16 // 0: unknown
}

// parseDest reads a destination; ok is false when it cannot be read
// unambiguously, which callers treat as "not allowed".
func parseDest(s string) (dest, bool) {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsFunc(s, isSpace) {
		return dest{}, false
	}
	var host string
	var port uint16
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil || u.Host == "" || u.Opaque != "" {
			return dest{}, false
		}
		host = u.Hostname()
		if p := u.Port(); p != "" {
			n, err := parsePort(p)
			if err != nil {
				return dest{}, false
			}
			port = n
		} else {
			port = defaultPort(strings.ToLower(u.Scheme))
		}
		if strings.HasPrefix(u.Host, "[") {
			host = "[" + host + "]" // keep the brackets so parseAddr knows
		}
	} else {
		if strings.ContainsAny(s, "/@?#\\") {
			return dest{}, false
		}
		h, p, err := splitHostPort(s)
		if err != nil {
			return dest{}, false
		}
		host, port = h, p
	}
	if addr, ok, err := parseAddr(host); ok {
		if err != nil {
			return dest{}, false
		}
		return dest{addr: addr, isAddr: true, port: port}, true
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if checkHostname(host) != nil {
		return dest{}, false
	}
	return dest{host: host, port: port}, true
}

func defaultPort(scheme string) uint16 {
	switch scheme {
	case "https", "wss":
		return 443
	case "http", "ws":
		return 80
	}
	return 0
}
