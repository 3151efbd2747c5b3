// Package app assembles a session from the merged configuration: the
// settings (user and project files, the environment, the organisation
// policy on top), the providers and their router, the system prompt and the
// project's instructions, the tools (files, shell and its sandbox, plan,
// knowledge), the knowledge-base store, the checkpoints sealed under the
// at-rest key, and the live session — its lease, its audit log verified
// against the store, the store and the transcript, the engine's sinks in
// that order. Every face (moteur run, chat, ask, sessions rewind, and the
// HTTP server and the terminal interface) opens its sessions here, so that
// a session is wired one way whoever runs it. What only watches sessions
// or answers their permission requests (sessions follow, approve, deny)
// opens an Observer: the store and an engine that runs no turn and takes
// no lease.
//
// app holds no flags and renders nothing: it takes plain values (Options)
// and returns what the user should be told as values (Settings.Notes,
// Session.Warnings). Its errors say what failed and why; an *OptionError is
// a request the configuration refuses and a *ConfigError a configuration
// that lacks what the request needs, so that a face can tell the user's
// mistake from a failure. What it words for a person (errors, notes,
// warnings) is in the run's language (Settings.Lang, i18n/french_app.go);
// errors that wrap a sentinel still do in every language.
//
// The data directory ($MOTEUR_HOME) holds:
//
//	moteur.db                    the session store (SQLite), and the
//	                             knowledge bases
//	key-id                       the id of the at-rest key that protects
//	                             this directory (never the key, which is
//	                             kept outside it)
//	audit/<session>.jsonl        each session's audit log, a chain keyed with
//	                             the at-rest key, whose head the store
//	                             records with each event; the session's
//	                             lease makes this process its only writer;
//	                             never deleted by moteur
//	transcripts/<session>.jsonl  each session's persisted events as plain
//	                             JSON lines (what hooks read); a copy of the
//	                             store, caught up from it when it lags
//	                             behind, so it is not fsynced
//	checkpoints/                 the content files had before a tool changed
//	                             them, by SHA-256, sealed under the at-rest
//	                             key, shared by every session: what a rewind
//	                             restores
//
// Directories are 0700 and files 0600: they hold everything the agents read
// and said.
package app
