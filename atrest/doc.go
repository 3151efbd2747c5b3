// Package atrest owns the key that protects what Moteur keeps at rest: it
// keys the audit chain (HMAC-SHA-256, so a log rehashed without the key
// fails verification) and encrypts what must keep secrets verbatim, such as
// checkpoint copies (AES-256-GCM), so that a copy of the data directory
// reveals nothing.
//
// The key is 32 random bytes in a file of its own, mode 0600, kept outside
// the data directory ($MOTEUR_HOME): in the user's configuration directory
// ($XDG_CONFIG_HOME/moteur/key) or where the organisation policy names it.
// Each use derives its own subkey from it (HKDF-SHA-256 with the use's name
// as info), so the audit chain and the checkpoints never share a key, and a
// key id (a MAC of a fixed label, 8 bytes) tells which key sealed a value
// without revealing it.
//
// A Key is immutable once loaded and safe for concurrent use.
package atrest
