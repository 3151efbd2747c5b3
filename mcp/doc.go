// Package mcp connects Moteur to MCP servers (the Model Context Protocol)
// through github.com/modelcontextprotocol/go-sdk.
//
// # What it owns
//
//   - Configuration (config.go, config_parse.go, expand.go): Load reads
//     the user's file ($XDG_CONFIG_HOME/moteur/mcp.json) and the project's
//     .mcp.json, in the {"mcpServers": {...}} shape other tools write:
//     "command", "args", "env", "cwd" for stdio; "type": "http" (aliases
//     "streamable-http", "streamableHttp") or "sse", "url", "headers" for
//     HTTP; Moteur's own "local", "disabled" and "startup_timeout_ms".
//     ${VAR} and ${VAR:-default} are expanded in command, args, env, cwd,
//     url and headers. A malformed file is an error naming the file, the
//     line, the column and the key; an unknown key is a warning; a bad
//     server is an error of that server only. A name in both files is the
//     user's.
//   - Trust (trust.go): a project's .mcp.json runs programs that arrived
//     with the code, so its servers start only once the user has trusted
//     that exact content (TrustStore: per project root and SHA-256, a file
//     of mode 0600 written atomically). An untrusted or changed file's
//     servers are reported, never started. The user's own file is trusted.
//   - Running servers (manager*.go, conn.go, stdio*.go, transport*.go):
//     Start starts a session's servers in parallel, each within a start-up
//     timeout, over stdio, streamable HTTP or legacy SSE; one that fails is
//     reported down and the others go on. A stdio server runs in its own
//     process group, with only a minimal base environment (BaseEnv) plus
//     what its configuration names, never the rest of Moteur's (no API
//     key); Close kills the group. Its stderr, and any stdout line that is
//     not protocol, are kept (the last few KiB) and quoted, masked, in
//     errors. tools/list_changed refreshes a server's definitions; a
//     server that stops is restarted on its next call.
//   - What leaves the machine (guard.go): every HTTP request to a server
//     (connections, reconnections, redirects) is checked by the Guard
//     first, and every call's arguments to a server not declared local.
//     Nothing is sent on a refusal, and there is no default Guard.
//
// The tools built from the servers' definitions (mcp_<server>_<tool>, the
// catalog) are in this package's other files, over the Manager's methods.
//
// # Concurrency
//
// A Manager is safe for concurrent use: calls to one server run
// concurrently over its one session; a restart happens once however many
// calls find the server stopped; a list_changed refresh never loses to an
// older list. ServerTools returns a copy of the list whose tools must not
// be modified. Close aborts the calls in flight, is idempotent, and
// returns once every process is gone. A TrustStore is safe for concurrent
// use in one process. Load and the types it returns are plain values.
package mcp
