// Package checkpoint owns what a rewind needs: the pre-write copies of the
// files the agent changes, the rewind points of a session, and the plan
// and execution of a rewind of the files to one of those points.
//
// # Pre-write copies
//
// A file tool saves the content it is about to replace in the Store before
// it writes, and records a tools.Change (path, blob id before, hash after)
// in its result. The Store is content-addressed: a blob's id is the hex
// SHA-256 of its bytes, so saving the same content twice costs nothing and
// a blob can always be checked against its name.
//
// Durability of the Store: a blob is written to a temporary file in the
// store's directory, fsynced, then renamed to its final name, and the
// directory is fsynced; a blob is therefore either absent or complete,
// even after a crash, and it is on disk before Put returns — before the
// event that refers to it can be persisted. Get re-hashes every blob it
// reads, so a blob damaged on disk is reported (ErrCorrupt, naming it),
// never restored. Blobs are files of mode 0600 in directories of mode 0700:
// they hold copies of the organisation's files.
//
// # Rewind state
//
// A State is a pure function of a session's persisted events: the live
// engine and Restore feed it the same events and get the same points,
// writes and non-undoable calls, so a restored session rewinds exactly as
// the live one would have. It reads no clock and no disk; only Plan and
// Apply look at the files.
//
// # Plans
//
// A rewind is made in two steps so that the user decides on facts: Plan
// computes, without changing anything, what a rewind to a point would do
// to each file (ok, or conflict when the disk no longer holds what this
// session left there — another session, an editor or a shell command
// changed it); Apply then carries out exactly the plan the user was shown,
// re-checking each file right before touching it and refusing any file
// whose state moved in between.
package checkpoint
