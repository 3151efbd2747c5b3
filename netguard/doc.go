// Package netguard owns the HTTP client that cannot be turned against the
// network it runs in (server-side request forgery): web_fetch and the
// search providers reach the web through it, never through
// http.DefaultClient.
//
// A Client speaks http and https only; it resolves each host once through
// its Resolver, checks every address against the rules of Check and dials
// the checked address itself, so that no second lookup can rebind the name
// to an internal address. Loopback, private, link-local, multicast,
// unspecified, shared (CGNAT) and cloud-metadata addresses are refused,
// IPv4-mapped IPv6 included, unless the host is in the allow list. Every
// redirect goes through the same dial and is checked again; TLS verifies
// the name of the URL, not the address dialled. Each refusal is a
// *RefusedError naming its rule.
package netguard
