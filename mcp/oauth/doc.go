// Package oauth logs Moteur in to the MCP servers reached over HTTP that
// require OAuth, and keeps their tokens, following the MCP authorization
// specification.
//
// It owns three things:
//
//   - Login: the interactive flow behind `moteur mcp login NAME`.
//     Protected-resource metadata is discovered from the WWW-Authenticate
//     header of the server's 401 or its well-known URL (RFC 9728), the
//     authorization server's metadata at its RFC 8414 and OpenID Connect
//     well-known URLs, a client is registered (RFC 7591) when none is
//     configured, and the authorization code grant runs with PKCE (S256) and
//     the resource parameter (RFC 8707). The go-sdk's auth and oauthex
//     packages do the protocol; this package adds the loopback redirect, the
//     outbound check and the store.
//   - Store: the tokens, one file per server (name and URL) under the user's
//     data directory, mode 0600, written atomically and sealed with the
//     at-rest key (atrest.Key, purpose Purpose): no token is ever on disk in
//     clear, and a token saved for one server cannot be read back as
//     another's.
//   - Transport: the http.RoundTripper the MCP client manager sends through.
//     It adds the bearer token for the server's own origin only, refreshes an
//     expired token (and once after a 401, when a refresh token exists),
//     saves what it refreshed, and turns a 401 it cannot fix into an error
//     wrapping ErrLoginRequired that tells the user to run
//     `moteur mcp login NAME`. A 403 insufficient_scope is one too: the
//     scopes asked for are saved, and the next Login requests them with the
//     ones granted (step-up), since more permissions take the user's
//     consent.
//
// Every outbound request — to the MCP server, the metadata URLs, the
// registration and token endpoints, every redirect hop — passes the
// configured CheckURL before a connection is made; the authorization URL is
// checked before it is printed. A refused host gets no connection.
//
// Tokens never appear in an error, a log line or a String of this package's
// types. Package redact masks what it can recognise should one leak
// elsewhere (a "Bearer …" header, "access_token": "…" in JSON), but not a
// bare opaque token, so none must leak.
//
// Concurrency: Store and Transport are safe for concurrent use. One refresh
// at a time runs per server across every Transport of one Store; a
// refresh first re-reads the file, so a token another process refreshed
// meanwhile is used rather than refreshed again. Login is meant to run once
// at a time per server.
package oauth
