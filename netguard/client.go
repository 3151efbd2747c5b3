package netguard

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"
)

// Resolver looks a host name up once; *net.Resolver implements it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// DialFunc opens a connection to a checked address ("1.2.3.4:443");
// (*net.Dialer).DialContext is the default.
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// Defaults of Config.
const (
	DefaultMaxRedirects = 5
	DefaultTimeout      = 3 * time.Minute
	dialTimeout         = 10 * time.Second
)

// Config configures a Client. The zero value is usable.
type Config struct {
	// AllowPrivateHosts lists the hosts ("intranet.corp.example") or
	// host:port pairs ("127.0.0.1:8888") that may resolve to addresses
	// Check refuses: nothing else reaches the internal network.
	AllowPrivateHosts []string
	// MaxRedirects bounds the redirects followed (0: DefaultMaxRedirects;
	// negative: none).
	MaxRedirects int
	// Timeout bounds one request, body included (0: DefaultTimeout).
	Timeout time.Duration
	// CheckURL, when set, is asked about every URL before it is requested,
	// redirects included (the outbound policy of the caller).
	CheckURL func(ctx context.Context, u *url.URL) error
	// Resolver resolves host names (nil: net.DefaultResolver).
	Resolver Resolver
	// Dial connects to a checked address (nil: a net.Dialer).
	Dial DialFunc
	// TLS is the TLS configuration (nil: the system roots). ServerName is
	// always the URL's host.
	TLS *tls.Config
}

// Client is an *http.Client whose every connection went through Check.
type Client struct {
	*http.Client
	cfg     Config
	allowed map[string]bool
}

// New returns a client for cfg.
func New(cfg Config) *Client {
	if cfg.MaxRedirects == 0 {
		cfg.MaxRedirects = DefaultMaxRedirects
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Resolver == nil {
		cfg.Resolver = net.DefaultResolver
	}
	if cfg.Dial == nil {
		cfg.Dial = (&net.Dialer{Timeout: dialTimeout}).DialContext
	}
	c := &Client{cfg: cfg, allowed: map[string]bool{}}
	for _, h := range cfg.AllowPrivateHosts {
		c.allowed[normalHost(h)] = true
	}
	tr := &http.Transport{
		// No proxy: a proxy would be dialled instead of the checked
		// address, and would do its own lookup.
		Proxy:                 nil,
		DialContext:           c.dial,
		TLSClientConfig:       cfg.TLS,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   dialTimeout,
		ResponseHeaderTimeout: cfg.Timeout,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       30 * time.Second,
	}
	c.Client = &http.Client{Transport: &checkTransport{c: c, next: tr}, Timeout: cfg.Timeout, CheckRedirect: c.checkRedirect}
	return c
}

// checkTransport checks each request's URL before it leaves: the scheme
// and the caller's CheckURL, for the first request and every redirect.
type checkTransport struct {
	c    *Client
	next http.RoundTripper
}

func (t *checkTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.c.CheckURL(req.Context(), req.URL); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	return t.next.RoundTrip(req)
}

// CheckURL checks u's scheme and asks Config.CheckURL.
func (c *Client) CheckURL(ctx context.Context, u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return &RefusedError{Host: u.Host, Rule: RuleScheme,
			Reason: fmt.Sprintf("scheme %q is not allowed: only http and https", u.Scheme)}
	}
	if u.Hostname() == "" {
		return &RefusedError{Rule: RuleScheme, Reason: fmt.Sprintf("%q has no host", u.Redacted())}
	}
	if c.cfg.CheckURL != nil {
		return c.cfg.CheckURL(ctx, u)
	}
	return nil
}

func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > c.cfg.MaxRedirects {
		return &RefusedError{Host: req.URL.Host, Rule: RuleRedirects,
			Reason: fmt.Sprintf("more than %d redirects (last to %s)", max(c.cfg.MaxRedirects, 0), req.URL.Redacted())}
	}
	return nil
}

// Allowed reports whether host ("name" or "name:port") is in the allow
// list, by name or by name and port.
func (c *Client) Allowed(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	return c.allowed[normalHost(hostport)] || c.allowed[normalHost(host)]
}

// dial resolves addr's host once, checks every address and connects to
// the first checked address that answers: the connection goes where the
// check looked, whatever the name resolves to a moment later.
func (c *Client) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("netguard: %w", err)
	}
	addrs, err := c.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	if !c.Allowed(addr) {
		literal := len(addrs) == 1 && addrs[0].String() == strings.Trim(host, "[]")
		for _, a := range addrs {
			name := host
			if literal {
				name = ""
			}
			if err := checkFor(name, a); err != nil {
				return nil, err
			}
		}
	}
	var errs []error
	for _, a := range addrs {
		conn, err := c.cfg.Dial(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("netguard: connecting to %s: %w", host, errors.Join(errs...))
}

// resolve returns host's addresses: the address itself for a literal,
// else one lookup.
func (c *Client) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return []netip.Addr{a.WithZone("")}, nil
	}
	addrs, err := c.cfg.Resolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, fmt.Errorf("netguard: resolving %s: %w", host, err)
	}
	if len(addrs) == 0 {
		return nil, &RefusedError{Host: host, Rule: RuleResolve, Reason: host + " has no address"}
	}
	return addrs, nil
}

// normalHost lower-cases a host or host:port and strips IPv6 brackets of a
// bare address, so that "[::1]:8080" and "::1" match what dial sees.
func normalHost(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	if host, port, err := net.SplitHostPort(h); err == nil {
		return net.JoinHostPort(host, port)
	}
	return strings.Trim(h, "[]")
}
