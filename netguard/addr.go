package netguard

import (
	"errors"
	"fmt"
	"net/netip"
)

// ErrRefused is wrapped by every refusal of the client (a *RefusedError):
// callers test it with errors.Is.
var ErrRefused = errors.New("refused")

// RefusedError says which rule refused a request.
type RefusedError struct {
	// Host is the host of the URL ("" when the rule is about the URL).
	Host string
	// Addr is the address refused, when the rule is about one.
	Addr netip.Addr
	// Rule names the rule: "loopback", "private", "metadata", "scheme", …
	Rule string
	// Reason is the sentence shown to the user.
	Reason string
}

func (e *RefusedError) Error() string { return "refused: " + e.Reason }

// Unwrap makes errors.Is(err, ErrRefused) hold.
func (e *RefusedError) Unwrap() error { return ErrRefused }

// Rules of the address check, as RefusedError.Rule names them.
const (
	RuleScheme      = "scheme"
	RuleRedirects   = "redirects"
	RuleMetadata    = "metadata"
	RuleLoopback    = "loopback"
	RulePrivate     = "private"
	RuleLinkLocal   = "link_local"
	RuleMulticast   = "multicast"
	RuleUnspecified = "unspecified"
	RuleShared      = "shared"
	RuleBroadcast   = "broadcast"
	RuleResolve     = "resolve"
)

// netip has no predicate for these.
var (
	metadata = []netip.Addr{
		netip.MustParseAddr("169.254.169.254"), // AWS, GCP, Azure, OpenStack…
		netip.MustParseAddr("fd00:ec2::254"),   // AWS over IPv6
		netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
	}
	// shared is RFC 6598 carrier-grade NAT space, internal to providers.
	shared = netip.MustParsePrefix("100.64.0.0/10")
	// thisNetwork is 0.0.0.0/8: Linux connects 0.x.y.z to the local host.
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")
	// nat64 embeds an IPv4 address in its last 32 bits (RFC 6052).
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	broadcast = netip.MustParseAddr("255.255.255.255")
)

// Check returns nil when a may be dialled without an allow-list entry, or
// the *RefusedError of the first rule it breaks. An IPv4-mapped or NAT64
// IPv6 address is judged by the IPv4 address it carries.
func Check(a netip.Addr) error {
	return checkFor("", a)
}

// checkFor is Check for an address host resolved to ("" for a literal),
// which the reason names.
func checkFor(host string, a netip.Addr) error {
	inner := a.Unmap()
	if nat64.Contains(inner) {
		b := inner.As16()
		inner = netip.AddrFrom4([4]byte(b[12:]))
	}
	rule, what := classify(inner)
	if rule == "" {
		return nil
	}
	shown := a.String()
	if inner != a {
		shown = fmt.Sprintf("%s (%s)", a, inner)
	}
	reason := fmt.Sprintf("%s is %s", shown, what)
	if host != "" {
		reason = fmt.Sprintf("%s resolves to %s, which is %s", host, shown, what)
	}
	return &RefusedError{Host: host, Addr: a, Rule: rule, Reason: reason + " (allow_private_hosts to allow it)"}
}

// classify returns the rule a breaks and how to say it, or "".
func classify(a netip.Addr) (rule, what string) {
	switch {
	case !a.IsValid():
		return RuleUnspecified, "not a valid address"
	case isMetadata(a):
		return RuleMetadata, "a cloud metadata address"
	case a.IsLoopback():
		return RuleLoopback, "a loopback address"
	case a.IsPrivate():
		return RulePrivate, "a private address"
	case a.IsLinkLocalUnicast():
		return RuleLinkLocal, "a link-local address"
	case a.IsMulticast(), a.IsLinkLocalMulticast(), a.IsInterfaceLocalMulticast():
		return RuleMulticast, "a multicast address"
	case a.IsUnspecified(), thisNetwork.Contains(a):
		return RuleUnspecified, "an unspecified address"
	case shared.Contains(a):
		return RuleShared, "a shared (carrier-grade NAT) address"
	case a == broadcast:
		return RuleBroadcast, "the broadcast address"
	}
	return "", ""
}

func isMetadata(a netip.Addr) bool {
	for _, m := range metadata {
		if a == m {
			return true
		}
	}
	return false
}
