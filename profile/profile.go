// Package profile defines Moteur's named compliance profiles: standard,
// restricted and airgapped. A profile is a fixed bundle of switches that the
// configuration selects (or the organisation policy forces); the packages that
// enforce them (policy, routing, tools) read the switches, never the name, so
// that what each profile does is written down in one place: here.
//
// What every profile does, standard included: classification runs — the
// rules of the configuration (classify.paths, classify.markings) and the
// built-in markings — and content it finds goes only to a provider marked
// local: the session is routed to one, and when none is configured the send
// is refused. A non-empty allowlist, and the organisation policy's
// allowed_hosts, restrict provider hosts in every profile.
//
// What the stricter profiles add is listed on each field of Profile.
package profile

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// Name names a profile.
type Name string

// The profiles, from the loosest to the strictest.
const (
	Standard   Name = "standard"
	Restricted Name = "restricted"
	Airgapped  Name = "airgapped"
)

// Parse reads a profile name. The empty string is Standard, the profile of a
// configuration that names none; anything else unknown is an error, since a
// misspelt "restricted" must not silently run as standard.
func Parse(s string) (Name, error) {
	switch n := Name(strings.ToLower(strings.TrimSpace(s))); n {
	case "":
		return Standard, nil
	case Standard, Restricted, Airgapped:
		return n, nil
	}
	return "", fmt.Errorf("unknown profile %q: want standard, restricted or airgapped", s)
}

// Profile is what a profile switches on.
type Profile struct {
	Name Name

	// EnforceClassification makes classification fail closed (restricted,
	// airgapped). In every profile, standard included, what the rules and
	// the built-in markings detect in a message is refused for non-local
	// providers (see the package doc): that check reads the messages of each
	// send. This switch adds what a per-message check cannot promise:
	//   - sticky: a session once classified stays classified for the rest
	//     of its life and goes only to local providers, even when the
	//     marked content has left its history (compacted into a summary that
	//     no longer carries the marking, or rewound); in standard, each send
	//     is judged on what it carries;
	//   - uncertainty counts as classified: content the classifier could
	//     not inspect (a file it could not read or decode, a classifier
	//     error) classifies the session, where standard lets it through.
	EnforceClassification bool

	// RequireAllowlist: every provider not marked local must be named by an
	// allowlist; with no allowlist at all nothing remote is allowed
	// (restricted, airgapped). In standard an empty allowlist allows any
	// host.
	RequireAllowlist bool

	// Jurisdictions lists where provider hosts are expected to be: suffixes
	// (".fr", ".eu", "*.corp.example") and exact hosts. A provider host
	// outside them gets a warning once per session (restricted). It is a
	// heuristic that warns, never a control: a TLD says nothing certain
	// about where a server runs. Empty: no warning.
	Jurisdictions []string

	// LocalOnly: only providers marked local are used; configuring any
	// other is an error (airgapped).
	LocalOnly bool

	// NoWebTools: web_search and web_fetch are not registered (airgapped).
	NoWebTools bool

	// ConfirmWebFetch: every call that fetches a web page asks the user
	// first, whatever the mode and the allow rules say (restricted).
	ConfirmWebFetch bool
}

// euJurisdictions are the EU's TLD and those of its 27 member states: the
// area where the GDPR applies, which is what restricted users care about.
var euJurisdictions = []string{
	".eu",
	".at", ".be", ".bg", ".cy", ".cz", ".de", ".dk", ".ee", ".es", ".fi",
	".fr", ".gr", ".hr", ".hu", ".ie", ".it", ".lt", ".lu", ".lv", ".mt",
	".nl", ".pl", ".pt", ".ro", ".se", ".si", ".sk",
}

// Get returns the profile named n; "" is Standard. A name Parse would reject
// gets every switch on: a value that bypassed Parse must not loosen
// anything.
func Get(n Name) Profile {
	switch n {
	case Standard, "":
		return Profile{Name: Standard}
	case Restricted:
		return Profile{Name: Restricted, EnforceClassification: true, RequireAllowlist: true,
			Jurisdictions: slices.Clone(euJurisdictions), ConfirmWebFetch: true}
	case Airgapped:
		return Profile{Name: Airgapped, EnforceClassification: true, RequireAllowlist: true,
			LocalOnly: true, NoWebTools: true, ConfirmWebFetch: true}
	}
	return Profile{Name: n, EnforceClassification: true, RequireAllowlist: true,
		Jurisdictions: slices.Clone(euJurisdictions), LocalOnly: true, NoWebTools: true, ConfirmWebFetch: true}
}

// OutsideJurisdiction reports whether a provider host lies outside
// p.Jurisdictions and deserves the warning. host may carry a port or be a
// URL. Hosts that stay inside the organisation's network are never outside:
// loopback, private and link-local addresses, "localhost", single-label
// names and the .local, .internal, .lan and .home.arpa suffixes. A public IP
// address is outside, since nothing tells where it is. With no
// jurisdictions, nothing is outside.
func (p Profile) OutsideJurisdiction(host string) bool {
	if len(p.Jurisdictions) == 0 {
		return false
	}
	h := normalizeHost(host)
	if h == "" {
		return true // nothing to go by: warn
	}
	if addr, err := netip.ParseAddr(h); err == nil {
		return !(addr.IsLoopback() || addr.IsPrivate() || addr.IsLinkLocalUnicast() || addr.IsUnspecified())
	}
	if h == "localhost" || !strings.Contains(h, ".") {
		return false
	}
	for _, s := range []string{".localhost", ".local", ".internal", ".lan", ".home.arpa"} {
		if strings.HasSuffix(h, s) {
			return false
		}
	}
	for _, j := range p.Jurisdictions {
		j = strings.ToLower(strings.TrimSpace(j))
		j = strings.TrimSuffix(strings.TrimPrefix(j, "*"), ".")
		switch {
		case j == "":
		case strings.HasPrefix(j, "."):
			if strings.HasSuffix(h, j) {
				return false
			}
		case h == j:
			return false
		}
	}
	return true
}

// normalizeHost reduces a URL, host:port or bracketed IPv6 address to the
// lower-case host name without a trailing dot.
func normalizeHost(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	if i := strings.IndexAny(s, "/?#"); i >= 0 {
		s = s[:i]
	}
	if i := strings.LastIndex(s, "@"); i >= 0 {
		s = s[i+1:]
	}
	if strings.HasPrefix(s, "[") {
		if i := strings.Index(s, "]"); i >= 0 {
			return s[1:i]
		}
	}
	if strings.Count(s, ":") == 1 {
		s = s[:strings.Index(s, ":")]
	}
	if i := strings.Index(s, "%"); i >= 0 && strings.Contains(s, ":") {
		s = s[:i] // IPv6 zone
	}
	return strings.TrimSuffix(s, ".")
}
