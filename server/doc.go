// Package server owns Moteur's HTTP face, served by `moteur serve`: the JSON
// API under /api/v1 (sessions, agent-chat and knowledge-chat, session
// events, approvals, rewinds, agents, knowledge bases and passages), its
// Server-Sent Events streams, the web page (embedded static files, web/)
// and the OpenAI-compatible door (/v1/chat/completions, /v1/models: each
// agent is a model). Every turn runs through package app, the same
// assembly, store, audit log and policy as the CLI, so a session started in
// the browser continues in the terminal and the other way round.
//
// The files, by concern: server.go (Config, routing helpers), auth.go (API
// keys and scopes), turns.go (the turns running in this process and the
// fan-out of their events), chat.go, sessions.go, prompts.go, rewind.go,
// agents_api.go, kb_api.go, kb_upload.go, passages_api.go, openai*.go,
// page.go, shutdown.go; sse.go and events.go frame and follow event
// streams; errors.go and decode.go are the JSON errors and the strict
// decoding of bodies; openapi.json describes every route (a test holds them
// together).
//
// State: sessions, approvals, agents and keys are in the store. What lives
// in this process only is what runs in it — the turns in progress, so that
// one turn of a session runs at a time and stop reaches it — and the
// streams that follow them. A session is opened for each turn and closed
// after it: its lease is held only while a turn runs.
//
// Concurrency and delivery: a Server serves any number of requests at
// once. A turn's events are published in order by one goroutine; each
// stream gets them all, persisted ones with their seq as SSE id, unless its
// client leaves, in which case it is dropped and the turn goes on. Every
// persisted event is in the store and the audit log before any stream sees
// it, so a follower that reconnects with Last-Event-ID misses nothing.
package server
