package event

import "github.com/moteur/moteur/redact"

// Secret masking: the rules, what they match and what they leave alone are
// package redact's; this file is the name events know them by.

// MaskString returns s with every secret replaced by "[REDACTED:<kind>]",
// and the kinds found (sorted, unique; nil when s holds no secret, in which
// case s itself is returned without copying). See package redact.
func MaskString(s string) (string, []string) { return redact.String(s) }
