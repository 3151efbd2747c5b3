package analyze

// The stemmer is deliberately light: it makes the inflections that French
// and English queries and documents disagree on meet ("réseaux"/"réseau",
// "policies"/"policy", "configurations"/"configurer"/"configured",
// "running"/"runs"/"run") and leaves derivation alone, preferring to miss a
// match than to merge unrelated words. It does not know which language a
// word is in, so every rule must be harmless for the other one.
//
// Rules, tried in this order on a word of n bytes; the first that applies
// rewrites the word, and the rules run again until none applies, which makes
// stemming idempotent (every rule shortens the word except y→i, after which
// no rule matches a final i):
//
//	-ies, -ied → -i      n ≥ 5   policies → polici, copied → copi, sorties → sorti
//	-eaux → -eau         n ≥ 5   réseaux → reseau
//	-eux → -eu           n ≥ 4   jeux → jeu (adjectives in -eux are invariable)
//	-aux → -al           n ≥ 6   journaux → journal (faux, taux are too short)
//	-s → ∅ unless -ss    n ≥ 4   tickets → ticket, apis → api, status → statu
//	-eed → -ee           n ≥ 5   agreed → agree
//	-ing → ∅             stem ≥ 3 with a vowel, then undoubled: running → run
//	-ed → ∅              stem ≥ 3 with a vowel, then undoubled: stopped → stop
//	-ement → ∅           stem ≥ 5   chiffrement → chiffr (paiement, element stay)
//	-ation → ∅           stem ≥ 5   configuration → configur (formation stays)
//	-er → ∅              stem ≥ 5   configurer → configur (server, order stay)
//	-e → ∅               n ≥ 5      configure → configur, activée → activ
//	-y → -i              n ≥ 4      policy → polici, deploy → deploi
//
// Repeating the rules can chain them: "analyse" → "analys" → "analy" →
// "anali". The stems are odd, but every form of the word reaches the same
// one, and only that matters for matching.
//
// So "configurations", "configuration", "configurer", "configuré(e)(s)",
// "configure", "configured" and "configuring" all give "configur"; the final
// e rule is what makes French feminines and participles meet their masculine
// ("activée", "activé", "active" → "activ"). Its price is a few
// collisions such as "porte" (door) and "port".

// stemmable reports whether w is a word the stemmer handles: ASCII letters
// only (digits mark identifiers and numbers, other scripts have other
// morphology) and long enough that a suffix can be told from the word.
func stemmable(w []byte) bool {
	if len(w) < 4 {
		return false
	}
	for _, c := range w {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// stem returns the stem of the stemmable word w, rewriting w in place.
func stem(w []byte) []byte {
	for {
		next, ok := stemStep(w)
		if !ok {
			return w
		}
		w = next
	}
}

// stemStep applies the first rule that matches w, if any.
func stemStep(w []byte) ([]byte, bool) {
	n := len(w)
	switch {
	case n >= 5 && (hasSuffix(w, "ies") || hasSuffix(w, "ied")):
		return w[:n-2], true
	case n >= 5 && hasSuffix(w, "eaux"), n >= 4 && hasSuffix(w, "eux"):
		return w[:n-1], true
	case n >= 6 && hasSuffix(w, "aux"):
		w[n-2] = 'l'
		return w[:n-1], true
	case n >= 4 && w[n-1] == 's' && w[n-2] != 's':
		return w[:n-1], true
	case n >= 5 && hasSuffix(w, "eed"):
		return w[:n-1], true
	case hasSuffix(w, "ing") && verbStem(w[:n-3]):
		return undouble(w[:n-3]), true
	case hasSuffix(w, "ed") && verbStem(w[:n-2]):
		return undouble(w[:n-2]), true
	case n >= 10 && (hasSuffix(w, "ement") || hasSuffix(w, "ation")):
		return w[:n-5], true
	case n >= 7 && hasSuffix(w, "er"):
		return w[:n-2], true
	case n >= 5 && w[n-1] == 'e':
		return w[:n-1], true
	case n >= 4 && w[n-1] == 'y':
		w[n-1] = 'i'
		return w, true
	}
	return w, false
}

func hasSuffix(w []byte, suffix string) bool {
	return len(w) >= len(suffix) && string(w[len(w)-len(suffix):]) == suffix
}

// verbStem reports whether s can be what is left of an English verb once
// -ing or -ed is removed: three letters or more, one of them a vowel, so
// that "string", "thing" and "need" keep their ending.
func verbStem(s []byte) bool {
	if len(s) < 3 {
		return false
	}
	for _, c := range s {
		if isVowel(c) {
			return true
		}
	}
	return false
}

// undouble removes the consonant doubled before -ing or -ed ("runn" → "run",
// "stopp" → "stop"), except l, s, f and z, which English doubles in the
// base word too ("install", "miss", "staff", "buzz").
func undouble(s []byte) []byte {
	n := len(s)
	if n < 4 || s[n-1] != s[n-2] || isVowel(s[n-1]) {
		return s
	}
	switch s[n-1] {
	case 'l', 's', 'f', 'z':
		return s
	}
	return s[:n-1]
}

func isVowel(c byte) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u', 'y':
		return true
	}
	return false
}
