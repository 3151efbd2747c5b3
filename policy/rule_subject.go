package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/moteur/moteur/shellcmd"
)

// A call's subjects are what its rules' patterns are matched against: the
// simple commands of a shell command line, the paths it touches, the URLs
// it fetches. They are read from the arguments by name, because the policy
// must not depend on each tool's code:
//
//	command            shell command line (a string; an argv array is joined with spaces)
//	env, stdin         with a command: its environment and standard input (see addShell)
//	path, file_path    path
//	paths              list of paths
//	url                URL
//	urls               list of URLs
//	items[].url        URL of each item (batch fetch tools)
//
// Names are compared case-insensitively, as encoding/json does when it
// fills a struct, so `{"PATH": …}` cannot slip past a rule on `path`.
// A glob or grep `pattern` is not a subject: it is a pattern or a regular
// expression, not a place; such tools are governed by their `path`.
// A tool whose arguments hold none of these names has one subject per
// top-level string argument. CallSubject (subject_text.go) reads the same
// names, through subjectArgs, for the line that asks the user.

type subjectKind uint8

const (
	subjShell      subjectKind = iota // one simple command of a command line
	subjPath                          // a path argument
	subjURL                           // a URL argument
	subjString                        // a string argument of a tool with no known subject
	subjUnreadable                    // arguments that could not be read with certainty
	subjEnv                           // an env variable of a command that no allow rule vouches for
	subjStdin                         // a stdin that a program of the command may run as code
)

type subject struct {
	kind subjectKind
	text string // the subject as the call wrote it, for reasons and URL globs

	// Shell commands.
	allowForms []shellForm // word lists an allow rule may match
	denyForms  []shellForm // word lists a deny or ask rule may match
	denyTexts  []string    // texts a deny or ask rule may match as a plain glob
	noop       bool        // changes nothing outside the shell, needs no rule
	reached    bool        // reached through another command: deny and ask rules only
	computed   string      // why no allow rule can cover the command
	parseErr   error       // the command line could not be parsed

	// Paths.
	rel    string // slash-separated, relative to the root; "" outside it
	abs    string // slash-separated absolute form; "" when unknown
	inside bool

	// URLs.
	host   string // lower case, no trailing dot
	hostOK bool
}

// describe names the subject in a reason, quoted and clipped so that a
// hostile argument cannot flood or forge the message.
func (s *subject) describe() string {
	switch s.kind {
	case subjShell:
		return "command " + quoteClip(s.text)
	case subjPath:
		return "path " + quoteClip(s.text)
	case subjURL:
		if !s.hostOK {
			return "URL " + quoteClip(s.text) + " (its host cannot be read with certainty)"
		}
		return "URL " + quoteClip(s.text)
	case subjString:
		return "argument " + quoteClip(s.text)
	case subjEnv:
		return "the environment variable " + quoteClip(s.text) + " (allow rules cover only ordinary ones: " + safeEnvList + ")"
	case subjStdin:
		return "a stdin that " + quoteClip(s.text) + " may run as code"
	}
	return "arguments that could not be read"
}

// safeEnvList names, for reasons, some of the variables allow rules cover:
// the whole list (shellcmd.SafeEnv) is too long for a sentence.
const safeEnvList = "GOFLAGS, CGO_ENABLED, NODE_ENV, RUST_BACKTRACE, TZ, LANG, LC_*, NO_COLOR, CI, TERM and a few more"

func quoteClip(s string) string {
	const limit = 120
	if len(s) > limit {
		cut := limit
		for cut > 0 && !utf8Start(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return strconv.Quote(s)
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// subjects is everything Check needs to know about one call's arguments.
type subjects struct {
	list []subject
	// keys identify the call's subjects for Remember: the exact command
	// line with its env and stdin, the normalised paths, the URLs as
	// written; for a tool with no known subject, every argument.
	keys []string
	// refusedEnv is an env variable of a command that can make it run
	// other code (shellcmd.EnvRefused): the call is denied.
	refusedEnv string
}

// readSubjects extracts the subjects of a call. Arguments that cannot be
// read with certainty (not a JSON object, a known argument twice or of the
// wrong type) give a single unreadable subject: the tool would read them
// one way or another, and the policy cannot know which.
func (p *Permissions) readSubjects(args json.RawMessage) subjects {
	var out subjects
	if err := p.fillSubjects(&out, args); err != nil {
		return subjects{list: []subject{{kind: subjUnreadable, parseErr: err}}}
	}
	return out
}

func (p *Permissions) fillSubjects(out *subjects, args json.RawMessage) error {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return nil
	}
	fields, err := decodeObject(trimmed)
	if err != nil {
		return err
	}
	var seen []string
	recognised := false
	var generic []field
	var command *string
	var envField, stdinField *field
	for i, f := range fields {
		// env and stdin are read only for a command, once it is known
		// whether the call has one; elsewhere they are ordinary
		// arguments.
		if strings.EqualFold(f.key, "env") || strings.EqualFold(f.key, "stdin") {
			slot := &envField
			if strings.EqualFold(f.key, "stdin") {
				slot = &stdinField
			}
			if *slot != nil {
				return fmt.Errorf("argument %q appears twice", f.key)
			}
			*slot = &fields[i]
			continue
		}
		name := knownArg(f.key)
		if name == "items" {
			urls, ok, err := itemURLs(f.raw)
			if err != nil {
				return err
			}
			if !ok {
				// Not a list of {url} objects: an ordinary argument.
				generic = append(generic, f)
				continue
			}
			name = "items"
			if slices.Contains(seen, name) {
				return fmt.Errorf("argument %q appears twice", f.key)
			}
			seen = append(seen, name)
			recognised = true
			for _, u := range urls {
				out.addURL(u)
			}
			continue
		}
		if name == "" {
			generic = append(generic, f)
			continue
		}
		if slices.Contains(seen, name) {
			return fmt.Errorf("argument %q appears twice", f.key)
		}
		seen = append(seen, name)
		recognised = true
		if isNull(f.raw) {
			continue
		}
		switch name {
		case "command":
			cmd, err := commandString(f.raw)
			if err != nil {
				return fmt.Errorf("argument %q: %w", f.key, err)
			}
			command = &cmd
		case "path", "file_path", "url":
			var s string
			if err := json.Unmarshal(f.raw, &s); err != nil {
				return fmt.Errorf("argument %q is not a string: %w", f.key, err)
			}
			if name == "url" {
				out.addURL(s)
			} else {
				out.add(p.pathSubject(s))
			}
		case "paths", "urls":
			var list []string
			if err := json.Unmarshal(f.raw, &list); err != nil {
				return fmt.Errorf("argument %q is not a list of strings: %w", f.key, err)
			}
			for _, s := range list {
				if name == "urls" {
					out.addURL(s)
				} else {
					out.add(p.pathSubject(s))
				}
			}
		}
	}
	if command != nil {
		env, stdin, err := commandInputs(envField, stdinField)
		if err != nil {
			return err
		}
		out.addShell(*command, env, stdin)
	} else {
		for _, f := range []*field{envField, stdinField} {
			if f != nil {
				generic = append(generic, *f)
			}
		}
	}
	if recognised {
		return nil
	}
	for _, f := range generic {
		// With no known subject, a remembered answer is for the exact
		// arguments, numbers and objects included: `delete_item(5)` must
		// not vouch for `delete_item(6)`.
		var compact bytes.Buffer
		if err := json.Compact(&compact, f.raw); err != nil {
			return fmt.Errorf("argument %q: %w", f.key, err)
		}
		out.keys = append(out.keys, "arg\x00"+f.key+"\x00"+compact.String())
		var s string
		if json.Unmarshal(f.raw, &s) == nil {
			out.list = append(out.list, subject{kind: subjString, text: s})
		}
	}
	return nil
}

func (out *subjects) add(s subject) {
	out.list = append(out.list, s)
	k := "path\x00" + s.rel
	if !s.inside {
		k = "path\x00/" + s.abs
	}
	out.keys = append(out.keys, k)
}

func (out *subjects) addURL(raw string) {
	host, ok := urlHost(raw)
	out.list = append(out.list, subject{kind: subjURL, text: raw, host: host, hostOK: ok})
	out.keys = append(out.keys, "url\x00"+raw)
}

// commandInputs reads a command's env (an object of strings) and stdin (a
// string); null is the same as absent.
func commandInputs(envField, stdinField *field) (env map[string]string, stdin string, err error) {
	if envField != nil && !isNull(envField.raw) {
		if err := json.Unmarshal(envField.raw, &env); err != nil {
			return nil, "", fmt.Errorf("argument %q is not an object of strings: %w", envField.key, err)
		}
		if dup := duplicateKey(envField.raw); dup != "" {
			return nil, "", fmt.Errorf("argument %q sets %q twice", envField.key, dup)
		}
	}
	if stdinField != nil && !isNull(stdinField.raw) {
		if err := json.Unmarshal(stdinField.raw, &stdin); err != nil {
			return nil, "", fmt.Errorf("argument %q is not a string: %w", stdinField.key, err)
		}
	}
	return env, stdin, nil
}

// duplicateKey returns a member name an object holds twice: the tool's
// decoder keeps the last, and the policy must judge what runs.
func duplicateKey(raw json.RawMessage) string {
	fields, err := decodeObject(raw)
	if err != nil {
		return ""
	}
	seen := map[string]bool{}
	for _, f := range fields {
		if seen[f.key] {
			return f.key
		}
		seen[f.key] = true
	}
	return ""
}

// addShell adds the subjects of a command line: one per simple command
// it would run (shellcmd.Parse), then what its env and stdin add.
//
// A command written in the line — substitutions, bodies and pipelines
// included — needs an allow rule, unless it changes nothing outside the
// shell (shellcmd.Command.Noop); no allow rule covers one whose program or
// code is computed at run time. A command reached through another one (a
// wrapper's, a `bash -c` script's) is for deny and ask rules only: the
// command that reaches it is the one an allow rule must cover. A line that
// cannot be parsed becomes one subject that no allow rule covers; deny and
// ask rules see the whole line and every command made out of it.
//
// env: a variable of class shellcmd.EnvRefused (BASH_ENV, PATH, LD_*,
// GIT_CONFIG_*, PAGER, …) denies the call (subjects.refusedEnv); any other
// that is not shellcmd.EnvSafe is a subject no allow rule covers.
//
// stdin: a non-empty stdin is a subject no allow rule covers when a program
// of the line may run its input as code (shellcmd.Command.ExecutesInput:
// shells, interpreters, xargs, a `-` or /dev/stdin argument); every other
// program reads it as data. When a shell reads it as its script, that
// script is parsed too, for deny and ask rules.
func (out *subjects) addShell(cmd string, env map[string]string, stdin string) {
	out.keys = append(out.keys, "command\x00"+cmd)
	line, err := shellcmd.Parse(cmd)
	if err != nil {
		s := subject{kind: subjShell, text: cmd, parseErr: err, denyTexts: []string{cmd}}
		for _, c := range line.Commands {
			s.addDenyForms(c)
		}
		out.list = append(out.list, s)
	} else {
		for _, c := range line.Commands {
			out.list = append(out.list, shellSubject(c))
		}
	}
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		out.keys = append(out.keys, "env\x00"+k+"="+env[k])
		switch shellcmd.EnvOf(k, env[k]) {
		case shellcmd.EnvRefused:
			if out.refusedEnv == "" {
				out.refusedEnv = k
			}
		case shellcmd.EnvSafe:
		default:
			out.list = append(out.list, subject{kind: subjEnv, text: k})
		}
	}
	if stdin == "" {
		return
	}
	out.keys = append(out.keys, "stdin\x00"+stdin)
	for _, c := range line.Commands {
		if c.ExecutesInput() {
			out.list = append(out.list, subject{kind: subjStdin, text: commandText(c)})
			break
		}
	}
	if !line.ScriptFromStdin() {
		return
	}
	in, err := shellcmd.Parse(stdin)
	s := subject{kind: subjShell, text: stdin, reached: true, denyTexts: []string{stdin}}
	if err != nil {
		s.parseErr = err
	}
	for _, c := range in.Commands {
		s.addDenyForms(c)
	}
	out.list = append(out.list, s)
}

// shellForm is one reading of a simple command, as words.
type shellForm struct {
	words []string
	wild  []bool // deny forms: words only known at run time
	// redirs: the words end with the command's writing redirections, so
	// only a rule that names a redirection may match.
	redirs bool
}

func commandText(c *shellcmd.Command) string {
	if c.Text != "" {
		return c.Text
	}
	return strings.Join(c.Texts(), " ")
}

// shellSubject is the subject of one simple command.
func shellSubject(c *shellcmd.Command) subject {
	s := subject{kind: subjShell, text: commandText(c), noop: c.Noop}
	s.addDenyForms(c)
	switch {
	case c.Via != "":
		s.reached = true
	case c.Noop:
	case c.Computed != "":
		s.computed = c.Computed
	default:
		s.allowForms = allowForms(c)
	}
	return s
}

// allowForms are the word lists an allow rule may match: the words as
// written, without the assignments before them when those are ordinary
// (FOO=1 git status is git status, HOME=/x git status is not), and with
// the assignments; each followed by the writing redirections, if any.
func allowForms(c *shellcmd.Command) []shellForm {
	words := c.Texts()
	var assigns, redirs []string
	risky := false
	for _, a := range c.Assigns {
		assigns = append(assigns, a.Name+"="+a.Value.Text)
		if shellcmd.EnvOf(a.Name, a.Value.Text) == shellcmd.EnvRisky || a.Array {
			risky = true
		}
	}
	for _, r := range c.Redirs {
		if r.Writes() || r.Network() {
			redirs = append(redirs, r.Fd+r.Op, r.Target.Text)
		}
	}
	var forms []shellForm
	add := func(ws []string) {
		f := shellForm{words: ws}
		if len(redirs) > 0 {
			f.words, f.redirs = append(slices.Clip(ws), redirs...), true
		}
		forms = append(forms, f)
	}
	if !risky && len(words) > 0 {
		add(words)
	}
	if len(assigns) > 0 || len(words) == 0 {
		add(append(assigns, words...))
	}
	return forms
}

// addDenyForms adds the readings of c that deny and ask rules see: its
// words, with the program's base name for one written as a path
// (/bin/rm), with its assignments, and as texts for a plain glob.
func (s *subject) addDenyForms(c *shellcmd.Command) {
	words := c.Texts()
	wild := make([]bool, len(words))
	for i, w := range c.Words {
		wild[i] = i > 0 && !w.Literal
	}
	s.denyForms = append(s.denyForms, shellForm{words: words, wild: wild})
	s.denyTexts = append(s.denyTexts, strings.Join(words, " "))
	if c.Text != "" {
		s.denyTexts = append(s.denyTexts, c.Text)
	}
	if alt := c.Normalized(); alt != nil {
		// Words only known at run time keep their place from the end:
		// only git's global options are dropped from the front.
		altWild := make([]bool, len(alt))
		for i := range alt {
			if j := len(words) - len(alt) + i; i > 0 && j < len(wild) {
				altWild[i] = wild[j]
			}
		}
		s.denyForms = append(s.denyForms, shellForm{words: alt, wild: altWild})
		s.denyTexts = append(s.denyTexts, strings.Join(alt, " "))
	}
	if len(c.Assigns) > 0 {
		var full []string
		for _, a := range c.Assigns {
			full = append(full, a.Name+"="+a.Value.Text)
		}
		fullWild := append(make([]bool, len(full)), wild...)
		full = append(full, words...)
		s.denyForms = append(s.denyForms, shellForm{words: full, wild: fullWild})
		s.denyTexts = append(s.denyTexts, strings.Join(full, " "))
	}
}

// key identifies the call for Remember. Subjects are sorted, so that the
// same paths in another order are the same call, and length-prefixed, so
// that no two different calls share a key.
func (out *subjects) key(tool string) string {
	keys := slices.Clone(out.keys)
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString(strconv.Itoa(len(tool)) + ":" + tool)
	for _, k := range keys {
		b.WriteString(strconv.Itoa(len(k)) + ":" + k)
	}
	return b.String()
}

func (out *subjects) unreadable() bool {
	return len(out.list) == 1 && out.list[0].kind == subjUnreadable
}

// subjectArgs are the argument names of the table at the top of this
// file, in the order CallSubject gives their texts: what the call runs,
// then where, then what it fetches.
var subjectArgs = [...]string{"command", "path", "file_path", "paths", "url", "urls", "items"}

// knownArg maps an argument name to the subject name it matches, or "".
func knownArg(key string) string {
	for _, name := range subjectArgs {
		if strings.EqualFold(key, name) {
			return name
		}
	}
	return ""
}

type field struct {
	key string
	raw json.RawMessage
}

// decodeObject reads a JSON object's members in order, keeping duplicates
// so that the caller can refuse them: a tool's decoder and a map would not
// agree on which of two `path` members counts.
func decodeObject(data []byte) ([]field, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	if tok != json.Delim('{') {
		return nil, errors.New("arguments are not a JSON object")
	}
	var fields []field
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("arguments: %w", err)
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("arguments: member %q: %w", key, err)
		}
		fields = append(fields, field{key: key, raw: raw})
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("arguments: data after the JSON object")
	}
	return fields, nil
}

func isNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

// commandString reads a `command` argument: a string, or an argv array,
// which is joined with spaces and then split like a command line. Joining
// can only make the split stricter (an argv element "a;b" becomes two
// commands), never hide a command.
func commandString(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var argv []string
	if err := json.Unmarshal(raw, &argv); err != nil {
		return "", fmt.Errorf("neither a string nor a list of strings: %w", err)
	}
	return strings.Join(argv, " "), nil
}

// itemURLs reads `items` as a list of objects with a `url`. ok is false
// when it is something else (a todo list, say), which is then no subject.
func itemURLs(raw json.RawMessage) (urls []string, ok bool, err error) {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil, false, nil
	}
	for _, it := range items {
		fields, ferr := decodeObject(it)
		if ferr != nil {
			continue
		}
		found := false
		for _, f := range fields {
			if !strings.EqualFold(f.key, "url") {
				continue
			}
			if found {
				return nil, false, errors.New(`an item of "items" has "url" twice`)
			}
			found = true
			if isNull(f.raw) {
				continue
			}
			var u string
			if err := json.Unmarshal(f.raw, &u); err != nil {
				return nil, false, fmt.Errorf(`"items[].url" is not a string: %w`, err)
			}
			urls = append(urls, u)
			ok = true
		}
	}
	return urls, ok, nil
}

// pathSubject normalises a path argument against the root. Paths are
// cleaned lexically; symbolic links are not resolved (the policy does not
// touch the file system), so confining a tool to the root's real tree is
// the tool's or the sandbox's job. A path that leaves the root (`..`, an
// absolute path elsewhere, `~`) is marked outside: no allow rule covers it,
// but deny and ask rules still see its absolute form.
func (p *Permissions) pathSubject(raw string) subject {
	s := subject{kind: subjPath, text: raw}
	switch {
	case strings.HasPrefix(raw, "~"):
		// Tools may expand it to a home directory the policy cannot know.
		s.abs = path.Clean(raw)
		return s
	case filepath.IsAbs(raw):
		s.abs = filepath.ToSlash(filepath.Clean(raw))
	case p.root != "":
		s.abs = filepath.ToSlash(filepath.Join(p.root, raw))
	default:
		// No root: a relative path is taken as it is; deny rules can still
		// see "../x".
		rel := path.Clean(filepath.ToSlash(raw))
		if local(rel) {
			s.rel, s.inside = rel, true
		} else {
			s.abs = rel
		}
		return s
	}
	if p.root != "" {
		// Judged on the absolute form, so that src/../../proj/x under
		// /proj is proj's x and not a way out.
		if rel, err := filepath.Rel(p.root, filepath.FromSlash(s.abs)); err == nil && local(filepath.ToSlash(rel)) {
			s.rel, s.inside = filepath.ToSlash(rel), true
		}
	}
	return s
}

// local reports whether a cleaned relative path stays inside its base.
func local(rel string) bool {
	return rel != ".." && !strings.HasPrefix(rel, "../") && !path.IsAbs(rel)
}

// urlHost returns the lower-case host of a URL. ok is false when there is
// no host or it is not a plain DNS name or IP address: percent-encoding,
// backslashes and non-ASCII names are where URL parsers disagree, and a
// domain rule must not allow what another parser reads as another host.
// A URL without a scheme is read as http, as fetch tools tend to.
func urlHost(raw string) (host string, ok bool) {
	r := strings.TrimSpace(raw)
	if !strings.Contains(r, "://") {
		r = "http://" + r
	}
	u, err := url.Parse(r)
	if err != nil || u.Opaque != "" {
		return "", false
	}
	h := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if net.ParseIP(h) != nil {
		return h, true
	}
	if !validHost(h) || strings.ContainsAny(u.Host, `\%`) {
		return "", false
	}
	return h, true
}
