// Package redact finds secrets in text and replaces them with markers,
// "[REDACTED:<kind>]". It owns the rules (which strings are secrets: the
// kinds below) and the replacement; the packages that keep or show text
// call it, and this comment is the account of what that guarantees.
//
// # What masking guarantees
//
//   - Events. The engine masks every persisted event (event.MaskEvent:
//     the fields each payload type declares beside it, every string of a
//     payload it does not know) before any sink (the audit log, the session
//     store, a transcript) or any subscriber (the terminal, the HTTP/SSE
//     stream, a follower of the session) sees it; `moteur ask` masks every
//     event it records or shows. The audit sink masks once more as it
//     writes, so that whoever hands it an event, the audit log holds no
//     secret the rules find; the other sinks store what they are given.
//   - The model's history. What the model reads back is what the log
//     keeps: a tool's result is masked before the model reads it, in the
//     very round that called the tool, and the model's earlier messages and
//     call arguments, compaction summaries and the user's earlier messages
//     are sent masked, so that a live session and one restored from its log
//     send the same messages.
//   - Files and knowledge bases. read_file and grep mask a file's text
//     (Lines, which keeps the line numbers true) before paging or searching
//     it, so no sequence of searches reads a key out a guess at a time; a
//     knowledge base's chunks are masked before they are stored or
//     embedded.
//   - The text itself. String is idempotent and its output matches no rule;
//     overlapping matches merge so that no fragment of a secret survives;
//     a secret spelled with escapes, invisible characters or fullwidth
//     letters is found through the decoded view (view.go) and masked
//     escapes and all.
//
// # What masking does not do
//
//   - Find what is not one of the kinds below: a password in prose ("my
//     password is hunter2"), a random string or an encoded one (base64,
//     hex) with no name before it, a token format not listed, a secret cut
//     in pieces (across strings, events or streamed chunks), the indented
//     lines of a YAML block scalar ("password: |"), which env_secret does
//     not follow. And a string shaped like a key that is none may be
//     masked.
//   - Mask the user's message on its way to the model in the turn it is
//     typed: the model reads it as typed (the user may be asking about the
//     key pasted); its event, and every later turn, hold it masked.
//   - Mask the streaming deltas (AssistantDelta, ReasoningDelta): the
//     engine delivers them to subscribers as the model writes them and
//     never persists them; the AssistantMessage that ends the round is
//     masked.
//   - Change what a call does: a tool runs with the arguments the model
//     wrote, and what reaches a provider or a server is the permissions'
//     and policy.Outbound's business, not this package's.
//   - Mask names and identifiers that Moteur or the user chose: tool
//     names, call ids, paths, hosts, the configuration SessionStarted
//     describes.
//   - Reach the checkpoints: the pre-write copy of a file is kept byte for
//     byte, secrets included, under $MOTEUR_HOME, so that a rewind restores
//     the user's file as it was.
//
// # Cost
//
// Masking runs on every persisted event of every session: each rule below
// is a hand-written scanner that starts from a literal anchor found with
// the standard library's vectorised search (strings.Index,
// strings.IndexByte), and text holding none of the anchors costs a few
// memchr-like passes. The rules are deliberately narrow: ordinary prose,
// git hashes, UUIDs and base64 images match none of them.
//
// # Rules
//
// Kinds (the <kind> of "[REDACTED:<kind>]") and what they match:
//
//   - private_key: a PEM block "-----BEGIN <LABEL>PRIVATE KEY-----" (also
//     "… PRIVATE KEY BLOCK-----" for PGP) through the matching
//     "-----END …PRIVATE KEY-----", or to the end of the text when the block
//     is unterminated. The header must be followed by key material (base64,
//     or an armor header such as "Proc-Type:"), so that source code that only
//     names the header ("-----BEGIN RSA PRIVATE KEY-----" in a string
//     constant) is left alone.
//   - anthropic_key: "sk-ant-" and openai_key: "sk-", "sk-proj-",
//     "sk-svcacct-", "sk-admin-", each followed by at least 20 characters of
//     [A-Za-z0-9_-] holding a digit or an upper-case letter (a kebab-case slug
//     such as "sk-learn-tutorial-for-beginners" is prose, not a key), not
//     preceded by [A-Za-z0-9_-] ("task-…", "risk-…").
//   - aws_access_key: AKIA or ASIA and 16 [A-Z0-9], alone (no letter or digit
//     on either side).
//   - github_token: ghp_, gho_, ghu_, ghs_, ghr_ and at least 30 [A-Za-z0-9];
//     github_pat_ and at least 30 [A-Za-z0-9_].
//   - slack_token: xoxa-, xoxb-, xoxp-, xoxr- and at least 10 [A-Za-z0-9-].
//   - google_api_key: AIza and at least 35 [A-Za-z0-9_-].
//   - jwt: a segment starting with eyJ (at least 10 characters), a dot, a
//     segment of at least 4 characters, a dot and the signature (possibly
//     empty: alg "none"), then any further ".segment" (JWE has five), all of
//     [A-Za-z0-9_-].
//   - bearer_token: the token after the word Bearer (or bearer, BEARER) and
//     blanks: at least 8 characters of [A-Za-z0-9._~+/=-] holding a digit,
//     or two upper-case and two lower-case letters. The word stays: "Bearer
//     [REDACTED:bearer_token]". Prose ("the bearer of bad news", "Bearer
//     Authentication") is left alone.
//   - url_password: the password of scheme://user:password@host, userinfo
//     as RFC 3986 allows it; scheme, user and host stay.
//   - aws_secret_key: the value assigned to a name ending with
//     secret_access_key (or aws_secret_key, SecretAccessKey…), as env_secret
//     below.
//   - env_secret: the value of an assignment whose name ends with KEY,
//     TOKEN, SECRET, PASSWORD, PASSWD, PWD, CREDENTIAL or CREDENTIALS, the
//     suffix being a word of the name (the whole name, after '_', '-' or '.',
//     or a capitalised camel-case word: apiKey), or a name ending with one of
//     the compounds apikey, accesskey, secretkey, privatekey, authkey,
//     apitoken, authtoken, accesstoken, refreshtoken, sessiontoken,
//     clientsecret — case-insensitive, so MONKEY and turkey are not names of
//     secrets. The forms: NAME=value, export NAME="value", --name=value,
//     ?name=value&…, NAME := "value", "name": "value" (JSON, also escaped
//     inside a JSON string: \"name\": \"value\"), 'name': 'value', and
//     name: value where the name starts a line (YAML, HTTP headers) or
//     follows '{', ',', '(' or a quote. The name and the operator stay; the
//     value goes, quotes kept: API_KEY="[REDACTED:env_secret]". An unquoted
//     value ends at a blank or one of "'`,;&|<>)} — except after a YAML-style
//     "name:" at the start of a line, where it runs to the end of the line
//     (a YAML plain scalar may hold blanks).
//
// What env_secret leaves alone, because it is not a secret:
//   - names: PWD and OLDPWD (the shell's directories); public keys
//     (…public_key, …pubkey); database and cache keys (primary_key,
//     foreign_key, sort_key, partition_key, cache_key, idempotency_key);
//     tokenizer tokens (eos_token, bos_token, pad_token, unk_token,
//     sep_token, cls_token, mask_token).
//   - placeholders, quoted or not: the empty value; an existing marker;
//     changeme (change-me, change_me), placeholder, redacted, value, val
//     (KEY=value); your-… and your_… (your-api-key); a run of one filler
//     character (xxx, ***, ...); <…>, ${…}, $(…), {{…}}, $NAME, %NAME%, %s,
//     %v, %q; a file's path (/run/secrets/db, ./creds.json, ~/.aws/key:
//     where the secret is, not the secret); a value equal to the name or to
//     its last word (token = token, password=password).
//   - code, when the value is unquoted: a value starting with one of
//     [ { ( $ % < : @ ? (a list, an object, an expression, a variable, a
//     query parameter :name @name ? $1) or with a prefix operator
//     (-int32(1), *p, !ok); a dotted reference, a call or an index
//     (self.token, process.env.TOKEN, getToken(), os.environ["K"]); a
//     keyword (nil, null, true, iota, range, struct…); an identifier
//     followed by ',' or ';' (a Go or JavaScript literal: Password: pw,);
//     an identifier holding the name's own word (state.secret =
//     resumptionSecret, key = key1); an identifier assigned to a dotted
//     name with blanks around '=' (session.secret = psk: a member in code;
//     a properties file writes db.password=x, which stays masked); a number
//     as code writes constants (218, 0x10), except a decimal of 6 digits or
//     more under a strong name (a PIN) and hex of more than 16 digits (key
//     material: PRIVATE_KEY=0x4c08…); any value of Go's := unless quoted.
//   - under KEY and TOKEN names, which name machine-made credentials, a
//     value that does not look machine-made: shorter than 8, holding a
//     blank, or with neither a digit nor (from 16 characters) both cases.
//     "key": "menu.open" and Token: tok stay; API_KEY=a1b2c3d4e5 goes.
//     PASSWORD, PASSWD, PWD, SECRET and CREDENTIAL(S) are strong names: a
//     person chose the value, which may be anything.
//
// Text is masked until no rule matches any more (a replaced span can make
// its neighbour match: "…-----END PRIVATE KEY-----sk-…" exposes the key's
// left boundary only once the block is gone), so String is idempotent and
// its output matches no rule. Overlapping matches merge into one marker,
// named after the match that starts first (the more specific rule on a tie:
// KEY=sk-… is an openai_key), so that no fragment of a secret survives.
// Existing markers are never cut: a match ending inside "[REDACTED:…]" is
// extended over it.
package redact

import (
	"sort"
	"strings"
)

// redactedPrefix starts every marker.
const redactedPrefix = "[REDACTED:"

// Kinds, in order of precedence when two matches start at the same byte.
const (
	kindPrivateKey   = "private_key"
	kindAnthropicKey = "anthropic_key"
	kindOpenAIKey    = "openai_key"
	kindAWSAccessKey = "aws_access_key"
	kindGitHubToken  = "github_token"
	kindSlackToken   = "slack_token"
	kindGoogleAPIKey = "google_api_key"
	kindJWT          = "jwt"
	kindAWSSecretKey = "aws_secret_key"
	kindURLPassword  = "url_password"
	kindBearerToken  = "bearer_token"
	kindEnvSecret    = "env_secret"
)

var kindPrecedence = map[string]int{
	kindPrivateKey: 0, kindAnthropicKey: 1, kindOpenAIKey: 2, kindAWSAccessKey: 3,
	kindGitHubToken: 4, kindSlackToken: 5, kindGoogleAPIKey: 6, kindJWT: 7,
	kindAWSSecretKey: 8, kindURLPassword: 9, kindBearerToken: 10, kindEnvSecret: 11,
}

// maxMaskPasses bounds the masking fixpoint. Each pass that changes the text
// removes at least one byte that is not part of a marker, so the loop ends on
// its own; the bound caps the cost of adversarial input. A second pass finds
// something only when a replaced span was glued to a secret (a key block
// followed by a key); a third needs such a chain to go on, which no rule
// allows and fuzzing never produced, so the bound is never reached.
const maxMaskPasses = 8

// span is a match: s[start:end] is replaced by the marker of kind.
type span struct {
	start, end int
	kind       string
}

// finder appends the matches of one rule in s.
type finder func(s string, out []span) []span

// finders are all the rules; each is anchored on a literal and cheap on text
// that lacks it.
var finders = []finder{
	findPrivateKeys,
	findSKKeys,
	findAWSAccessKeys,
	findTokens,
	findJWTs,
	findURLPasswords,
	findBearerTokens,
	findEnvSecrets,
}

// String returns s with every secret replaced by "[REDACTED:<kind>]",
// and the kinds found (sorted, unique; nil when s holds no secret, in which
// case s itself is returned without copying).
func String(s string) (string, []string) { return mask(s, false) }

// Lines is String for text whose lines count (a file whose lines a tool
// numbers, a search that reports lines by number): a secret that spans
// several lines leaves its marker on each of them, line breaks kept, so
// that the text keeps its lines and line N of the output is line N of s.
func Lines(s string) (string, []string) { return mask(s, true) }

func mask(s string, lines bool) (string, []string) {
	var kinds []string
	for range maxMaskPasses {
		out, found := maskOnce(s, lines)
		if found == nil {
			break
		}
		s = out
		kinds = append(kinds, found...)
	}
	if len(kinds) == 0 {
		return s, nil
	}
	sort.Strings(kinds)
	u := kinds[:1]
	for _, k := range kinds[1:] {
		if k != u[len(u)-1] {
			u = append(u, k)
		}
	}
	return s, u
}

// maskOnce applies every rule once, to s and to its decoded view (see
// view.go); found lists the kinds of the markers written (nil: nothing
// matched, out == s).
func maskOnce(s string, lines bool) (out string, found []string) {
	// No buffer up front: the finders are called through a slice, so a
	// local array would escape and cost an allocation on every string,
	// while nearly every string holds no secret.
	var spans []span
	for _, f := range finders {
		spans = f(s, spans)
	}
	if v, ok := newView(s); ok {
		n := len(spans)
		for _, f := range finders {
			spans = f(v.text, spans)
		}
		for k := n; k < len(spans); k++ {
			spans[k].start, spans[k].end = v.origin(spans[k].start, spans[k].end)
		}
	}
	if len(spans) == 0 {
		return s, nil
	}
	snapToMarkers(s, spans)
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].start != spans[j].start {
			return spans[i].start < spans[j].start
		}
		return kindPrecedence[spans[i].kind] < kindPrecedence[spans[j].kind]
	})
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for i := 0; i < len(spans); {
		cur := spans[i]
		// Merge every match overlapping this one: the union goes, so that
		// no tail of a longer secret survives next to the marker.
		j := i + 1
		for ; j < len(spans) && spans[j].start < cur.end; j++ {
			cur.end = max(cur.end, spans[j].end)
		}
		b.WriteString(s[last:cur.start])
		if lines {
			writeMarkerLines(&b, s[cur.start:cur.end], cur.kind)
		} else {
			writeMarker(&b, cur.kind)
		}
		found = append(found, cur.kind)
		last = cur.end
		i = j
	}
	b.WriteString(s[last:])
	return b.String(), found
}

func writeMarker(b *strings.Builder, kind string) {
	b.WriteString(redactedPrefix)
	b.WriteString(kind)
	b.WriteByte(']')
}

// writeMarkerLines replaces secret with one marker on each of its lines
// that is not empty, keeping its line breaks ("\n", and the "\r" before
// one).
func writeMarkerLines(b *strings.Builder, secret, kind string) {
	for k := 0; ; k++ {
		line, rest, more := strings.Cut(secret, "\n")
		cr := strings.HasSuffix(line, "\r")
		if k == 0 || strings.TrimSuffix(line, "\r") != "" {
			writeMarker(b, kind)
		}
		if cr {
			b.WriteByte('\r')
		}
		if !more {
			return
		}
		b.WriteByte('\n')
		secret = rest
	}
}

// snapToMarkers widens matches that begin or end inside an existing marker
// to cover the whole marker: a marker is never cut in two.
func snapToMarkers(s string, spans []span) {
	if !strings.Contains(s, redactedPrefix) {
		return
	}
	var markers [][2]int // in order, disjoint
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], redactedPrefix)
		if j < 0 {
			break
		}
		ms := i + j
		me := markerEnd(s, ms)
		if me < 0 {
			i = ms + len(redactedPrefix)
			continue
		}
		markers = append(markers, [2]int{ms, me})
		i = me
	}
	// inside returns the marker strictly around p.
	inside := func(p int) ([2]int, bool) {
		k := sort.Search(len(markers), func(k int) bool { return markers[k][1] > p })
		if k < len(markers) && markers[k][0] < p {
			return markers[k], true
		}
		return [2]int{}, false
	}
	for k := range spans {
		if m, ok := inside(spans[k].start); ok {
			spans[k].start = m[0]
		}
		if m, ok := inside(spans[k].end); ok {
			spans[k].end = m[1]
		}
	}
}

// markerEnd returns the end of the marker "[REDACTED:kind]" starting at i,
// or -1 when none starts there.
func markerEnd(s string, i int) int {
	if !strings.HasPrefix(s[i:], redactedPrefix) {
		return -1
	}
	j := i + len(redactedPrefix)
	k := j
	for k < len(s) && (s[k] >= 'a' && s[k] <= 'z' || s[k] == '_') {
		k++
	}
	if k == j || k >= len(s) || s[k] != ']' {
		return -1
	}
	return k + 1
}

// startsWithMarker reports whether s begins with a whole marker.
func startsWithMarker(s string) bool { return markerEnd(s, 0) > 0 }

// Byte classes.
var (
	classAlnum   [256]bool // [A-Za-z0-9]
	classWord    [256]bool // [A-Za-z0-9_]
	classToken   [256]bool // [A-Za-z0-9_-]: base64url
	classUpperD  [256]bool // [A-Z0-9]
	classBearer  [256]bool // RFC 6750 b64token: [A-Za-z0-9._~+/=-]
	classUser    [256]bool // RFC 3986 userinfo: unreserved, pct-encoded, sub-delims, ':'
	className    [256]bool // assignment names: [A-Za-z0-9_.-]
	classB64     [256]bool // standard base64 and padding
	classSlackCh [256]bool // [A-Za-z0-9-]
)

func init() {
	for c := 0; c < 256; c++ {
		b := byte(c)
		alpha := b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
		digit := b >= '0' && b <= '9'
		classAlnum[c] = alpha || digit
		classWord[c] = alpha || digit || b == '_'
		classToken[c] = alpha || digit || b == '_' || b == '-'
		classUpperD[c] = b >= 'A' && b <= 'Z' || digit
		classBearer[c] = alpha || digit || strings.IndexByte("._~+/=-", b) >= 0
		classUser[c] = alpha || digit || strings.IndexByte("-._~%!$&'()*+,;=:", b) >= 0
		className[c] = alpha || digit || strings.IndexByte("_.-", b) >= 0
		classB64[c] = alpha || digit || b == '+' || b == '/' || b == '='
		classSlackCh[c] = alpha || digit || b == '-'
	}
}

// runEnd returns the end of the run of class members starting at i.
func runEnd(s string, i int, class *[256]bool) int {
	for i < len(s) && class[s[i]] {
		i++
	}
	return i
}

// boundaryBefore reports whether no class member precedes s[i].
func boundaryBefore(s string, i int, class *[256]bool) bool {
	return i == 0 || !class[s[i-1]]
}

func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			return true
		}
	}
	return false
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

func hasLower(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'a' && s[i] <= 'z' {
			return true
		}
	}
	return false
}

// eachIndex calls f with every index of sub in s, resuming where f says.
func eachIndex(s, sub string, f func(i int) (next int)) {
	for i := 0; i <= len(s)-len(sub); {
		j := strings.Index(s[i:], sub)
		if j < 0 {
			return
		}
		i = max(f(i+j), i+j+1)
	}
}

// eachIndexBy is eachIndex for a short sub whose byte sub[k] is rare in
// ordinary text: a vectorised search for that byte beats strings.Index,
// which searches for the first byte ('e' of "eyJ" is the commonest letter).
func eachIndexBy(s, sub string, k int, f func(i int) (next int)) {
	for i := k; i < len(s); {
		j := strings.IndexByte(s[i:], sub[k])
		if j < 0 {
			return
		}
		c := i + j - k
		if c >= 0 && strings.HasPrefix(s[c:], sub) {
			i = max(f(c)+k, i+j+1)
		} else {
			i += j + 1
		}
	}
}

// findPrivateKeys matches PEM private key blocks.
func findPrivateKeys(s string, out []span) []span {
	const begin, end = "-----BEGIN ", "-----END "
	eachIndex(s, begin, func(i int) int {
		hdr, ok := pemLabelEnd(s, i+len(begin))
		if !ok || !looksLikeKeyMaterial(s[hdr:]) {
			return i + len(begin)
		}
		stop := len(s) // unterminated: the rest of the text is key material
		eachIndex(s[hdr:], end, func(j int) int {
			if e, ok := pemLabelEnd(s[hdr:], j+len(end)); ok {
				stop = hdr + e
				return len(s) // found: stop searching
			}
			return j + len(end)
		})
		out = append(out, span{i, stop, kindPrivateKey})
		return stop
	})
	return out
}

// pemLabelEnd reads a PEM label ("RSA PRIVATE KEY") and its closing "-----"
// at s[i:]; ok only for the label of a private key.
func pemLabelEnd(s string, i int) (int, bool) {
	j := i
	for j < len(s) && (classUpperD[s[j]] || s[j] == ' ') {
		j++
	}
	label := s[i:j]
	if !strings.HasPrefix(s[j:], "-----") ||
		!(strings.HasSuffix(label, "PRIVATE KEY") || strings.HasSuffix(label, "PRIVATE KEY BLOCK")) {
		return 0, false
	}
	return j + len("-----"), true
}

// looksLikeKeyMaterial reports whether what follows a PEM header is a key's
// body: blanks and line breaks (raw, or escaped as in JSON and source code),
// then base64 or an armor header ("Proc-Type: …", "Version: …").
func looksLikeKeyMaterial(s string) bool {
	i := 0
	for i < len(s) {
		switch {
		case s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n':
			i++
		case s[i] == '\\' && i+1 < len(s) && (s[i+1] == 'n' || s[i+1] == 'r' || s[i+1] == '\\'):
			i += 2
		default:
			goto body
		}
	}
body:
	s = s[i:]
	if n := runEnd(s[:min(len(s), 16)], 0, &classB64); n >= 16 {
		return true
	}
	j := 0
	for j < len(s) && (classAlnum[s[j]] || s[j] == '-') {
		j++
	}
	return j > 0 && j < len(s) && s[j] == ':'
}

// findSKKeys matches OpenAI and Anthropic keys.
func findSKKeys(s string, out []span) []span {
	eachIndexBy(s, "sk-", 1, func(i int) int {
		if !boundaryBefore(s, i, &classToken) {
			return i + 3
		}
		e := runEnd(s, i+3, &classToken)
		key := s[i:e]
		kind, prefix := kindOpenAIKey, "sk-"
		for _, p := range []string{"sk-proj-", "sk-svcacct-", "sk-admin-"} {
			if strings.HasPrefix(key, p) {
				prefix = p
			}
		}
		if strings.HasPrefix(key, "sk-ant-") {
			kind, prefix = kindAnthropicKey, "sk-ant-"
		}
		body := key[len(prefix):]
		if len(body) >= 20 && (hasDigit(body) || hasUpper(body)) {
			out = append(out, span{i, e, kind})
		}
		return e
	})
	return out
}

// findAWSAccessKeys matches AWS access key IDs.
func findAWSAccessKeys(s string, out []span) []span {
	for _, p := range []string{"AKIA", "ASIA"} {
		eachIndex(s, p, func(i int) int {
			e := i + 20
			if !boundaryBefore(s, i, &classAlnum) || e > len(s) || (e < len(s) && classAlnum[s[e]]) {
				return i + 4
			}
			if runEnd(s[:e], i+4, &classUpperD) != e {
				return i + 4
			}
			out = append(out, span{i, e, kindAWSAccessKey})
			return e
		})
	}
	return out
}

// tokenRule is a rule for a token that starts with a literal prefix, not
// preceded by a member of boundary, and goes on with at least min bytes of
// body. When variants is set, the prefix goes on with one of its bytes
// and then sep before the body ("gh", "p", "_": ghp_…).
type tokenRule struct {
	prefix         string
	variants       string
	sep            byte
	boundary, body *[256]bool
	min            int
	kind           string
}

// tokenRules are the GitHub, Slack and Google tokens.
var tokenRules = []tokenRule{
	{prefix: "gh", variants: "pousr", sep: '_', boundary: &classWord, body: &classAlnum, min: 30, kind: kindGitHubToken},
	{prefix: "github_pat_", boundary: &classWord, body: &classWord, min: 30, kind: kindGitHubToken},
	{prefix: "xox", variants: "abpr", sep: '-', boundary: &classAlnum, body: &classSlackCh, min: 10, kind: kindSlackToken},
	{prefix: "AIza", boundary: &classToken, body: &classToken, min: 35, kind: kindGoogleAPIKey},
}

// findTokens matches the tokenRules.
func findTokens(s string, out []span) []span {
	for k := range tokenRules {
		out = tokenRules[k].find(s, out)
	}
	return out
}

func (t *tokenRule) find(s string, out []span) []span {
	eachIndex(s, t.prefix, func(i int) int {
		body := i + len(t.prefix)
		if t.variants != "" {
			if body+2 > len(s) || strings.IndexByte(t.variants, s[body]) < 0 || s[body+1] != t.sep {
				return body
			}
			body += 2
		}
		if !boundaryBefore(s, i, t.boundary) {
			return i + len(t.prefix)
		}
		e := runEnd(s, body, t.body)
		if e-body >= t.min {
			out = append(out, span{i, e, t.kind})
		}
		return e
	})
	return out
}

// findJWTs matches JSON Web Tokens (and JWE).
func findJWTs(s string, out []span) []span {
	eachIndexBy(s, "eyJ", 2, func(i int) int {
		if !boundaryBefore(s, i, &classToken) {
			return i + 3
		}
		e1 := runEnd(s, i, &classToken)
		if e1-i < 10 || e1 >= len(s) || s[e1] != '.' {
			return e1
		}
		e2 := runEnd(s, e1+1, &classToken)
		if e2-(e1+1) < 4 || e2 >= len(s) || s[e2] != '.' {
			return e2
		}
		e := e2
		// The signature may be empty (alg "none"); a dot followed by
		// nothing is left to the text (a full stop).
		for e < len(s) && s[e] == '.' {
			n := runEnd(s, e+1, &classToken)
			if n == e+1 {
				break
			}
			e = n
		}
		out = append(out, span{i, e, kindJWT})
		return e
	})
	return out
}

// findURLPasswords matches the password of scheme://user:password@host.
func findURLPasswords(s string, out []span) []span {
	eachIndex(s, "://", func(i int) int {
		if i == 0 || !classAlnum[s[i-1]] {
			return i + 3
		}
		u := i + 3
		e := runEnd(s, u, &classUser)
		if e+1 >= len(s) || s[e] != '@' || !(classAlnum[s[e+1]] || s[e+1] == '[') {
			return e
		}
		c := strings.IndexByte(s[u:e], ':')
		if c < 0 {
			return e
		}
		p := u + c + 1
		if p < e && !isPlaceholder(s[p:e]) {
			out = append(out, span{p, e, kindURLPassword})
		}
		return e
	})
	return out
}

// findBearerTokens matches the token after the word Bearer.
func findBearerTokens(s string, out []span) []span {
	for _, word := range []string{"Bearer", "bearer", "BEARER"} {
		eachIndex(s, word, func(i int) int {
			t := i + len(word)
			if i > 0 && classAlnum[s[i-1]] {
				return t
			}
			for t < len(s) && (s[t] == ' ' || s[t] == '\t') {
				t++
			}
			if t == i+len(word) {
				return t
			}
			e := runEnd(s, t, &classBearer)
			if tok := s[t:e]; len(tok) >= 8 && looksLikeToken(tok) {
				out = append(out, span{t, e, kindBearerToken})
			}
			return e
		})
	}
	return out
}

// looksLikeToken tells a random token from a word: a digit, or mixed case
// beyond a capital initial.
func looksLikeToken(tok string) bool {
	if hasDigit(tok) {
		return true
	}
	upper, lower := 0, 0
	for i := 0; i < len(tok); i++ {
		switch c := tok[i]; {
		case c >= 'A' && c <= 'Z':
			upper++
		case c >= 'a' && c <= 'z':
			lower++
		}
	}
	return upper >= 2 && lower >= 2
}

// findEnvSecrets matches the values of assignments to secret names. Its
// anchors are the operators '=' and ':', visited in order with two
// vectorised searches.
func findEnvSecrets(s string, out []span) []span {
	eq, co := strings.IndexByte(s, '='), strings.IndexByte(s, ':')
	var run [2]int
	next := func(from int, c byte) int {
		if from >= len(s) {
			return -1
		}
		if j := strings.IndexByte(s[from:], c); j >= 0 {
			return from + j
		}
		return -1
	}
	for eq >= 0 || co >= 0 {
		var j int
		if co < 0 || (eq >= 0 && eq < co) {
			j, eq = eq, next(eq+1, '=')
		} else {
			j, co = co, next(co+1, ':')
		}
		sp, ok := envAt(s, j, &run)
		if !ok {
			continue
		}
		out = append(out, sp)
		// The value is gone: operators inside it are not assignments.
		if eq >= 0 && eq < sp.end {
			eq = next(sp.end, '=')
		}
		if co >= 0 && co < sp.end {
			co = next(sp.end, ':')
		}
	}
	return out
}

// envAt matches an assignment whose operator is s[j].
func envAt(s string, j int, run *[2]int) (span, bool) {
	op := s[j]
	nameEnd := j
	valStart := j + 1
	if op == '=' {
		if j+1 < len(s) && strings.IndexByte("=~>", s[j+1]) >= 0 {
			return span{}, false // ==, =~, =>
		}
		if j > 0 && s[j-1] == ':' {
			nameEnd = j - 1 // Go's :=
		} else if j > 0 && strings.IndexByte("=!<>+-*/%&|^~?", s[j-1]) >= 0 {
			return span{}, false // comparisons and compound assignments
		}
	} else if j+1 < len(s) && (s[j+1] == ':' || s[j+1] == '=' || s[j+1] == '/') {
		return span{}, false // ::, := (seen at its '='), ://
	}

	// The name, read backwards: blanks, an optional closing quote (maybe
	// escaped), the name, its opening quote.
	k := nameEnd
	for k > 0 && nameEnd-k < 16 && (s[k-1] == ' ' || s[k-1] == '\t') {
		k--
	}
	var quote byte
	escaped := false
	if k > 0 && (s[k-1] == '"' || s[k-1] == '\'') {
		quote = s[k-1]
		k--
		if k > 0 && s[k-1] == '\\' {
			escaped = true
			k--
		}
	}
	if k == 0 || !className[s[k-1]] {
		return span{}, false
	}
	// Cheap rejection before reading the whole name: the last two letters
	// of every secret suffix (key, token, secret, password, passwd, pwd,
	// credential, credentials).
	if k < 2 {
		return span{}, false
	}
	switch (uint16(s[k-2]|0x20) << 8) | uint16(s[k-1]|0x20) {
	case 'e'<<8 | 'y', 'e'<<8 | 'n', 'e'<<8 | 't', 'r'<<8 | 'd', 'w'<<8 | 'd', 'l'<<8 | 's', 'a'<<8 | 'l':
	default:
		return span{}, false
	}
	ne := k
	for k > 0 && ne-k < 128 && className[s[k-1]] {
		k--
	}
	if k > 0 && className[s[k-1]] {
		return span{}, false // longer than any name
	}
	name := s[k:ne]
	if quote != 0 {
		if k == 0 || s[k-1] != quote || (escaped && (k < 2 || s[k-2] != '\\')) {
			return span{}, false
		}
	}
	kind, strong, ok := secretName(name)
	if !ok {
		return span{}, false
	}
	lineStart := false
	if op == ':' && quote == 0 {
		// An unquoted "name:" is a YAML key or a header only at the start
		// of a line, or in an object literal; elsewhere it is prose
		// ("your password: must be…").
		p := k
		for p > 0 && (s[p-1] == ' ' || s[p-1] == '\t') {
			p--
		}
		if p >= 1 && s[p-1] == '-' && (p == 1 || s[p-2] == ' ' || s[p-2] == '\t' || s[p-2] == '\n') {
			p-- // a YAML list item: "- password: x"
			for p > 0 && (s[p-1] == ' ' || s[p-1] == '\t') {
				p--
			}
		}
		switch {
		case p == 0 || s[p-1] == '\n' || s[p-1] == '\r':
			lineStart = true
		case strings.IndexByte("{,(\"'", s[p-1]) >= 0:
		default:
			return span{}, false
		}
		if valStart < len(s) && s[valStart] != ' ' && s[valStart] != '\t' &&
			s[valStart] != '\n' && s[valStart] != '\r' {
			return span{}, false // YAML wants a blank after the colon
		}
	}

	v := valStart
	for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
		v++
	}
	if quote == 0 && k > 0 && v < len(s) && (s[k-1] == '"' || s[k-1] == '\'') && s[v] == s[k-1] {
		// "API_KEY=" + key: the quote after the operator closes the
		// string the name opened; the value is not in the text.
		return span{}, false
	}
	start, end, quoted := envValue(s, v, lineStart, run)
	if nameEnd != j && !quoted {
		return span{}, false // Go's name := expression: code, not data
	}
	val := s[start:end]
	if start == end || exemptValue(val, quoted, name, strong) {
		return span{}, false
	}
	if op == '=' && !quoted && s[j-1] == ' ' && strings.Contains(name, ".") && isIdent(val) {
		// A member assigned a variable, blanks around the operator:
		// session.secret = psk is code. (A properties file writes
		// db.password=hunter2.)
		return span{}, false
	}
	return span{start, end, kind}, true
}

// envValue returns the bounds of the value at s[v:] (inside its quotes,
// when quoted). Every scan is linear in the value, never in the rest of the
// line: a minified JSON document is one line holding many values. run
// remembers the last unquoted value, so that the values of operators inside
// it (k=k=k=…) are not scanned again.
func envValue(s string, v int, restOfLine bool, run *[2]int) (start, end int, quoted bool) {
	switch {
	case v < len(s) && (s[v] == '"' || s[v] == '\''):
		q := s[v]
		start = v + 1
		i := start
		for ; i < len(s) && s[i] != q && s[i] != '\n' && s[i] != '\r'; i++ {
			if q == '"' && s[i] == '\\' && i+1 < len(s) && s[i+1] != '\n' && s[i+1] != '\r' {
				i++ // an escape (JSON, shell, Go): \" does not close
			}
		}
		return start, i, true // at the closing quote, or unterminated: to the end of the line
	case v+1 < len(s) && s[v] == '\\' && (s[v+1] == '"' || s[v+1] == '\''):
		// An escaped quote: the assignment sits inside a JSON string.
		q := s[v+1]
		start = v + 2
		i := start
		for ; i < len(s) && s[i] != '\n' && s[i] != '\r' && !(s[i] == '\\' && i+1 < len(s) && s[i+1] == q); i++ {
		}
		return start, i, true
	case restOfLine:
		// At most one value per line starts a line: linear overall.
		end = v
		for end < len(s) && s[end] != '\n' && s[end] != '\r' {
			end++
		}
		for end > v && (s[end-1] == ' ' || s[end-1] == '\t') {
			end--
		}
		return v, end, false
	default:
		if v >= run[0] && v <= run[1] && run[1] > 0 {
			return v, run[1], false // no stop between v and the run's end
		}
		end = v
		for end < len(s) && !isValueStop(s[end]) {
			end++
		}
		run[0], run[1] = v, end
		return v, end, false
	}
}

func isValueStop(c byte) bool {
	return c <= ' ' || strings.IndexByte("\"'`,;&|<>)}", c) >= 0
}

// secretSuffixes end the names of secrets. The strong ones name secrets
// chosen by people (a password may be anything); the others, keys and
// tokens, name machine-made credentials, and a value that looks nothing like
// one is left alone: Key = iota, Token: tok, "key": "menu.open".
var secretSuffixes = []struct {
	word   string
	strong bool
}{
	{"credentials", true}, {"credential", true}, {"password", true}, {"passwd", true},
	{"secret", true}, {"token", false}, {"key", false}, {"pwd", true},
}

// secretCompounds are names that end with a secret suffix glued to another
// word, which the word-boundary rule would miss.
var secretCompounds = []string{"apikey", "accesskey", "secretkey", "privatekey", "authkey",
	"apitoken", "authtoken", "accesstoken", "refreshtoken", "sessiontoken", "clientsecret"}

// notSecretNames end names that look secret but are not (compared folded to
// lower case, without '_', '-' and '.').
var notSecretNames = []string{"publickey", "pubkey", "primarykey", "foreignkey", "sortkey",
	"partitionkey", "cachekey", "idempotencykey",
	"eostoken", "bostoken", "padtoken", "unktoken", "septoken", "clstoken", "masktoken"}

// secretName reports whether name (an assignment's left side) names a
// secret, of which kind, and whether its suffix is a strong one. It runs on
// every candidate operator: no allocation.
func secretName(name string) (kind string, strong, ok bool) {
	name = strings.TrimLeft(name, "-")
	if name == "" || strings.EqualFold(name, "pwd") || strings.EqualFold(name, "oldpwd") {
		return "", false, false // PWD, OLDPWD: the shell's working directories
	}
	for _, n := range notSecretNames {
		if hasWordSuffix(name, n) {
			return "", false, false
		}
	}
	kind = kindEnvSecret
	if hasWordSuffix(name, "secretaccesskey") || hasWordSuffix(name, "awssecretkey") {
		kind = kindAWSSecretKey
	}
	for _, c := range secretCompounds {
		if hasWordSuffix(name, c) {
			return kind, strings.HasSuffix(c, "secret"), true
		}
	}
	for _, suf := range secretSuffixes {
		p := len(name) - len(suf.word)
		if p < 0 || !strings.EqualFold(name[p:], suf.word) {
			continue
		}
		if p == 0 || strings.IndexByte("_-.", name[p-1]) >= 0 || isCapitalised(name[p:]) {
			return kind, suf.strong, true
		}
		return "", false, false
	}
	return "", false, false
}

// hasWordSuffix reports whether name ends with word (lower case) once
// folded to lower case and stripped of '_', '-' and '.': API_KEY ends with
// apikey.
func hasWordSuffix(name, word string) bool {
	i, j := len(name)-1, len(word)-1
	for ; j >= 0; i-- {
		if i < 0 {
			return false
		}
		c := name[i]
		if c == '_' || c == '-' || c == '.' {
			continue
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != word[j] {
			return false
		}
		j--
	}
	return true
}

// isCapitalised reports whether w is a camel-case word: Key, Password.
func isCapitalised(w string) bool {
	if w == "" || w[0] < 'A' || w[0] > 'Z' {
		return false
	}
	for i := 1; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// exemptValue reports whether a value assigned to a secret name is not a
// secret: empty, already redacted, a placeholder, code (when unquoted), a
// number that is a constant rather than a PIN, or, for a key or token (not
// strong), anything that does not look machine-made.
func exemptValue(v string, quoted bool, name string, strong bool) bool {
	if len(v) > maxExemptLen {
		// Too long to be a placeholder or a line of code, and checking
		// would cost a scan per operator inside it: masked.
		return false
	}
	v = strings.TrimSpace(v)
	if v == "" || startsWithMarker(v) || isPlaceholder(v) || isPath(v) {
		return true
	}
	if !quoted {
		if strings.IndexByte("[{($%<:@?", v[0]) >= 0 {
			// A list, an object, an expression, a variable, a query
			// parameter (:name, @name, ?, $1).
			return true
		}
		// A Go or JavaScript line ends the value with a separator:
		// Password: pw, is code; so are prefix operators: -int32(1),
		// *(*T)(p), !ok.
		code := strings.TrimRight(v, ",;")
		if op := strings.TrimLeft(code, "-!*&^"); op != code && op != "" &&
			(strings.IndexByte("[{($", op[0]) >= 0 || isCodeReference(op) || isIdent(op)) {
			return true
		}
		if isCodeReference(code) || isKeyword(code) || (code != v && isIdent(code)) {
			return true
		}
		if digits, ok := numericLiteral(code); ok && (!strong || digits < 6) {
			return true // SYS_REQUEST_KEY = 218, FLAG_KEY = 0x10; a PIN stays secret
		}
		if isIdent(v) {
			// A variable named after what it holds: state.secret =
			// resumptionSecret, apiKey = userKey, key = key1.
			for _, suf := range secretSuffixes {
				if hasWordSuffix(name, suf.word) && containsFold(v, suf.word) {
					return true
				}
			}
		}
	}
	if !strong && !looksMachineMade(v) {
		return true
	}
	// token = token, password=password: a variable or a demonstration.
	last := strings.TrimLeft(name, "-")
	if i := strings.LastIndexAny(last, "_-."); i >= 0 && i+1 < len(last) {
		last = last[i+1:]
	}
	return strings.EqualFold(v, name) || strings.EqualFold(v, last)
}

// maxExemptLen is the longest value exemptValue may leave alone.
const maxExemptLen = 4 << 10

// looksMachineMade reports whether a key or token value could be a
// generated credential: at least 8 characters without a blank, holding a
// digit, or 16 and more with both cases.
func looksMachineMade(v string) bool {
	if len(v) < 8 || strings.ContainsAny(v, " \t") {
		return false
	}
	return hasDigit(v) || (len(v) >= 16 && hasUpper(v) && hasLower(v))
}

// numericLiteral reports whether v is a number as code writes constants
// (decimal, possibly signed or with a fraction; 0x, 0o, 0b), and how many
// digits it has. Hex of more than 16 digits is not a constant but key
// material (a 0x… private key).
func numericLiteral(v string) (digits int, ok bool) {
	v = strings.TrimLeft(v, "+-")
	if len(v) > 2 && v[0] == '0' && strings.IndexByte("xXoObB", v[1]) >= 0 {
		for i := 2; i < len(v); i++ {
			c := v[i] | 0x20
			if !(v[i] >= '0' && v[i] <= '9' || c >= 'a' && c <= 'f' || v[i] == '_') {
				return 0, false
			}
		}
		return len(v) - 2, len(v)-2 <= 16
	}
	dot := false
	for i := 0; i < len(v); i++ {
		switch {
		case v[i] >= '0' && v[i] <= '9':
			digits++
		case v[i] == '.' && !dot && i > 0:
			dot = true
		case v[i] == '_' && i > 0:
		default:
			return 0, false
		}
	}
	return digits, digits > 0
}

// isKeyword reports whether an unquoted value is a literal or keyword of a
// programming language rather than data: token = nil, Key = iota,
// secret := range.
func isKeyword(v string) bool {
	for _, w := range []string{"null", "nil", "none", "undefined", "true", "false",
		"iota", "range", "new", "make", "await", "self", "this", "function", "lambda",
		"struct", "interface", "func", "class", "type"} {
		if strings.EqualFold(v, w) {
			return true
		}
	}
	return false
}

// isPath reports whether v is a file's path (GOOGLE_CREDENTIALS=/etc/g.json,
// X_PATH_PASSWD = "/etc/passwd"): where a secret is, not the secret.
func isPath(v string) bool {
	switch {
	case strings.HasPrefix(v, "/"), strings.HasPrefix(v, "./"), strings.HasPrefix(v, "../"), strings.HasPrefix(v, "~/"):
	default:
		return false
	}
	if len(v) < 2 || strings.Count(v, "/") < 1 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !className[v[i]] && v[i] != '/' && v[i] != '~' {
			return false
		}
	}
	return true
}

// containsFold reports whether s contains word (lower case), ignoring case.
func containsFold(s, word string) bool {
	for i := 0; i+len(word) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(word)], word) {
			return true
		}
	}
	return false
}

// isPlaceholder reports whether v stands for a secret rather than being one.
func isPlaceholder(v string) bool {
	for _, w := range []string{"changeme", "change-me", "change_me", "placeholder", "redacted", "value", "val",
		"%s", "%v", "%q"} {
		if strings.EqualFold(v, w) {
			return true
		}
	}
	for _, p := range []string{"your-", "your_", "${", "$(", "{{"} {
		if len(v) >= len(p) && strings.EqualFold(v[:len(p)], p) {
			return true
		}
	}
	if len(v) >= 2 && v[0] == '<' && v[len(v)-1] == '>' {
		return true
	}
	if len(v) >= 3 && v[0] == '%' && v[len(v)-1] == '%' && isIdent(v[1:len(v)-1]) {
		return true // %NAME% (Windows)
	}
	if len(v) >= 2 && v[0] == '$' && isIdent(v[1:]) {
		return true // $NAME
	}
	if len(v) >= 3 && strings.Trim(v, "xX*.•…#-_") == "" {
		return true // xxx, ***, ..., ####
	}
	return false
}

func isIdent(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !classWord[s[i]] {
			return false
		}
	}
	return true
}

// isCodeReference reports whether an unquoted value is a dotted reference
// (self.token, process.env.TOKEN) or a call or index of an identifier
// (getToken(), os.environ["KEY"]): code that reads a secret, not the secret.
func isCodeReference(v string) bool {
	i := 0
	dots := 0
	for {
		j := i
		for j < len(v) && classWord[v[j]] {
			j++
		}
		if j == i || !isIdent(v[i:j]) {
			return false
		}
		if j == len(v) {
			return dots > 0
		}
		switch v[j] {
		case '.':
			dots++
			i = j + 1
		case '(', '[':
			return true
		default:
			return false
		}
	}
}

// Member returns the marker that replaces value, the value of a JSON
// object member called name, when name names a secret (api_key, password…)
// and value is not a placeholder: once a document is decoded, the member's
// name no longer sits next to its value in the text, so the rule that
// would see "name": "value" is applied here. ok is false otherwise.
func Member(name, value string) (marker string, ok bool) {
	if name == "" {
		return "", false
	}
	kind, strong, ok := secretName(name)
	if !ok || exemptValue(value, true, name, strong) {
		return "", false
	}
	return redactedPrefix + kind + "]", true
}

// KindPrivateKey is the kind of a private key block's marker.
const KindPrivateKey = kindPrivateKey

// Marker returns the marker that replaces a secret of kind:
// "[REDACTED:<kind>]".
func Marker(kind string) string { return redactedPrefix + kind + "]" }
