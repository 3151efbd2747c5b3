package oauth

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// redactURL is u without its query, fragment and user info: what an error
// may show of a URL whose query can carry a code or a state.
func redactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(unparsable URL)"
	}
	p.User = nil
	p.RawQuery = ""
	p.Fragment = ""
	return p.String()
}

// parseServerURL checks that u is an absolute http or https URL with a host.
func parseServerURL(u string) (*url.URL, error) {
	p, err := url.Parse(u)
	if err != nil {
		return nil, fmt.Errorf("server URL %q: %w", redactURL(u), err)
	}
	if s := strings.ToLower(p.Scheme); s != "http" && s != "https" {
		return nil, fmt.Errorf("server URL %q: scheme %q, want http or https", redactURL(u), p.Scheme)
	}
	if p.Host == "" {
		return nil, fmt.Errorf("server URL %q: no host", redactURL(u))
	}
	return p, nil
}

// sameOrigin reports whether a and b have the same scheme, host and port,
// the boundary a bearer token must not cross.
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(hostPort(a), hostPort(b))
}

func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return net.JoinHostPort(u.Hostname(), "443")
	case "http":
		return net.JoinHostPort(u.Hostname(), "80")
	}
	return u.Host
}
