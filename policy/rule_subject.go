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
)

// A call's subjects are what its rules' patterns are matched against: the
// simple commands of a shell command line, the paths it touches, the URLs
// it fetches. They are read from the arguments by name, because the policy
// must not depend on each tool's code:
//
//	command            shell command line (a string; an argv array is joined with spaces)
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
// top-level string argument.

type subjectKind uint8

const (
	subjShell      subjectKind = iota // one simple command of a command line
	subjPath                          // a path argument
	subjURL                           // a URL argument
	subjString                        // a string argument of a tool with no known subject
	subjUnreadable                    // arguments that could not be read with certainty
)

type subject struct {
	kind subjectKind
	text string // the subject as the call wrote it, for reasons and URL globs

	// Shell commands.
	allowForms []string // texts an allow rule may match
	denyForms  []string // texts a deny or ask rule may match
	noop       bool     // shell syntax only (`fi`, `}`), needs no rule
	parseErr   error    // the command line could not be split

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
	}
	return "arguments that could not be read"
}

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
	// line, the normalised paths, the URLs as written; for a tool with no
	// known subject, every argument.
	keys []string
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
	for _, f := range fields {
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
			out.addShell(cmd)
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

// addShell adds one subject per simple command. A line that cannot be
// split becomes one subject that no allow rule covers; deny and ask rules
// see the whole line and every command recognised before the error.
func (out *subjects) addShell(cmd string) {
	out.keys = append(out.keys, "command\x00"+cmd)
	parts, err := SplitShell(cmd)
	if err != nil {
		s := subject{kind: subjShell, text: cmd, parseErr: err}
		_, s.denyForms, _ = shellForms(cmd)
		for _, part := range parts {
			_, deny, _ := shellForms(part)
			s.denyForms = append(s.denyForms, deny...)
		}
		out.list = append(out.list, s)
		return
	}
	for _, part := range parts {
		allow, deny, noop := shellForms(part)
		out.list = append(out.list, subject{kind: subjShell, text: part, allowForms: allow, denyForms: deny, noop: noop})
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

// knownArg maps an argument name to the subject name it matches, or "".
func knownArg(key string) string {
	for _, name := range [...]string{"command", "path", "file_path", "paths", "url", "urls", "items"} {
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
