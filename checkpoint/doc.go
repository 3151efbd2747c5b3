// Package checkpoint owns what a rewind needs: the pre-write copies of the
// files the agent changes, the rewind points of a session, and the plan
// and execution of a rewind of the files to one of those points.
//
// # Pre-write copies
//
// A file tool saves the content it is about to replace in the Store before
// it writes, and records a effect.Change (path, blob id before, hash after)
// in its result. A blob's id is the hex SHA-256 of its bytes, so saving the
// same content twice costs nothing, a blob can always be checked against
// its id, and the hash of a file on disk can be compared with the ids the
// session recorded (Plan and State rely on that).
//
// # Secrets at rest
//
// Those copies hold whatever the files held: a .env, a key file. So a
// Store opened with the at-rest key (Config.Key, package atrest) keeps no
// file content in clear, and lets no content be guessed from a name:
//   - each blob is sealed with AES-256-GCM under the key's checkpoint
//     subkey (atrest.PurposeCheckpoint), its id authenticated as associated
//     data, so that a blob moved to another blob's name does not open;
//   - a sealed blob's file is named by an HMAC-SHA-256 of its id under a
//     subkey of its own, under sealed/: the plain SHA-256 a file name used
//     to be lets anyone holding a copy of the directory confirm a guess of
//     a small secret file (PASSWORD=1234); the keyed name does not. The id
//     Put returns, and sessions record, stays the plain SHA-256: Plan,
//     Apply and State compare it with the hashes of files on disk.
//
// Blobs written by earlier versions are clear files named by their id (in
// the two-hex-digit directories beside sealed/). Get still reads them,
// checking their hash as before; a Put of the same content seals it and
// removes the clear copy; SealClear seals them all (the command line runs
// it whenever it opens the store with a key), each clear copy removed only
// once its sealed copy is durable.
//
// Errors name what is wrong: a sealed blob that does not open is ErrCorrupt
// naming the blob's file and the key's; one sealed with another key is
// atrest.ErrWrongKey naming both keys — with the wrong key a sealed blob is
// not even found, its name being keyed, and the error then says whose
// blobs the store holds; a store without a key asked for a blob it only
// has sealed answers ErrNeedKey. A rewind reports such errors for the file
// concerned and goes on with the others (Apply).
//
// A store without a key (Config.Clear) writes in clear, as earlier versions
// did; it must be asked for, so that a forgotten key is an error and never
// a secret written in clear. It is meant for tests and for a data
// directory that has no key yet.
//
// What sealing does not hide: how many blobs there are and their sizes (a
// sealed blob is its content plus atrest.Overhead bytes), and the times
// they were written. The session's events record the plain SHA-256 of the
// contents too (effect.Change): whoever reads them can confirm a guess just
// as well, so the event log must be protected on its own account.
//
// Durability of the Store: a blob is written to a temporary file in the
// store's directory, fsynced, then renamed to its final name, and the
// directory is fsynced; a blob is therefore either absent or complete,
// even after a crash, and it is on disk before Put returns — before the
// event that refers to it can be persisted. Get checks every blob it
// reads (the hash of its content, and for a sealed one its authentication
// tag), so a blob damaged on disk is reported (ErrCorrupt, naming it),
// never restored. Blobs are files of mode 0600 in directories of mode
// 0700: even sealed, they are the organisation's files.
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
