package shell

import (
	"strings"

	"github.com/moteur/moteur/tools"
)

// classify returns tools.RiskProbe when command only reads, tools.RiskWrite
// otherwise. The policy may let a probe run without asking, so every doubt
// makes a write. The command line is split into simple commands on
// newlines, ";", "&&", "||", "|" and "|&" (quotes and backslashes
// respected, comments skipped); it is a probe only when
//
//   - nothing in it runs code the split cannot see: no command or process
//     substitution ($( ), backticks, <( ), >( )), no ${ } or $[ ] (bash
//     evaluates array subscripts and @P transformations in them), no $' '
//     quoting, no subshell or function parentheses, no here-document, no
//     background &;
//   - nothing is written: no > or >> redirection except to /dev/null (fd
//     duplications like 2>&1 are fine), no <>;
//   - every simple command starts with a read-only program, written as a
//     plain word: no variable assignment before it, no expansion in it.
//
// The read-only programs:
//
//	git status|log|diff|show|branch|rev-parse|ls-files|blame
//	ls cat head tail wc pwd echo grep rg find stat file which env date
//	uname tree du df cd
//
// Those that can also write or run other programs have their arguments
// checked: git takes only --no-pager or -C before the subcommand, no
// --output (nor an abbreviation of it), and branch only lists; find has no
// -delete, -exec, -execdir, -ok, -okdir, -fls, -fprint, -fprint0 or
// -fprintf; rg no --pre or --hostname-bin; date no -s/--set; tree no -o or
// -R; file no -C/--compile; env no argument at all. For these programs an
// argument with an unquoted glob or brace, or any $, is refused too:
// a file named "-delete" matched by * would become an option.
//
// cd is there because it changes only the shell's own directory, and
// "cd sub && git status" is how models look around.
//
// Out of reach of any such check: a repository's own configuration can make
// git run programs (core.fsmonitor, diff.external, textconv), and a
// read-only command still reads anything the user can.
func classify(command string) tools.Risk {
	cmds, ok := split(command)
	if !ok || len(cmds) == 0 {
		return tools.RiskWrite
	}
	for _, c := range cmds {
		if !readOnly(c) {
			return tools.RiskWrite
		}
	}
	return tools.RiskProbe
}

// word is one shell word with its quotes removed.
type word struct {
	text    string
	expands bool // holds an unquoted glob or brace, or any $
	quoted  bool // holds a quote or backslash (so "2">x is no fd number)
}

// lexer splits a command line; any construct it does not fully understand
// stops it (ok false), and the line counts as a write.
type lexer struct {
	s string
	i int
}

// split returns the simple commands of s, each as its words, with
// redirections checked and removed.
func split(s string) (cmds [][]word, ok bool) {
	l := &lexer{s: s}
	var cur []word
	for {
		l.skipBlanksAndComment()
		if l.i >= len(l.s) {
			break
		}
		switch c := l.s[l.i]; c {
		case '\n', ';':
			l.i++
			cmds, cur = appendCmd(cmds, cur), nil
			continue
		case '|':
			l.i++
			if l.i < len(l.s) && (l.s[l.i] == '|' || l.s[l.i] == '&') {
				l.i++
			}
			cmds, cur = appendCmd(cmds, cur), nil
			continue
		case '&':
			switch l.peek(1) {
			case '&':
				l.i += 2
				cmds, cur = appendCmd(cmds, cur), nil
				continue
			case '>': // &> and &>>: stdout and stderr to a file
				l.i += 2
				if l.peek(0) == '>' {
					l.i++
				}
				if !l.fileTarget() {
					return nil, false
				}
				continue
			}
			return nil, false // a background job
		case '>', '<':
			if !l.redirect() {
				return nil, false
			}
			continue
		case '(', ')':
			return nil, false
		}
		w, ok := l.word()
		if !ok {
			return nil, false
		}
		// "2>file", "2>&1": digits right before < or > are a file
		// descriptor, not a word.
		if next := l.peek(0); (next == '>' || next == '<') && !w.quoted && isDigits(w.text) {
			if !l.redirect() {
				return nil, false
			}
			continue
		}
		cur = append(cur, w)
	}
	return appendCmd(cmds, cur), true
}

func appendCmd(cmds [][]word, cur []word) [][]word {
	if len(cur) > 0 {
		cmds = append(cmds, cur)
	}
	return cmds
}

func (l *lexer) peek(k int) byte {
	if l.i+k < len(l.s) {
		return l.s[l.i+k]
	}
	return 0
}

// skipBlanksAndComment skips spaces and tabs, and a comment: a # that
// starts a word runs to the end of the line. Skipping it matters: a quote
// inside a comment would otherwise swallow the commands of the next lines.
func (l *lexer) skipBlanksAndComment() {
	for l.i < len(l.s) && (l.s[l.i] == ' ' || l.s[l.i] == '\t') {
		l.i++
	}
	if l.i < len(l.s) && l.s[l.i] == '#' {
		for l.i < len(l.s) && l.s[l.i] != '\n' {
			l.i++
		}
	}
}

// redirect reads a redirection operator at l.i and its target.
func (l *lexer) redirect() bool {
	op := l.s[l.i]
	l.i++
	next := l.peek(0)
	if op == '<' {
		switch next {
		case '(', '>': // process substitution; <> opens for writing
			return false
		case '<':
			if l.peek(1) != '<' {
				// A here-document: its body lines are data to bash but
				// would be commands to this lexer.
				return false
			}
			l.i += 2 // <<< here-string: one word of input
		case '&':
			l.i++ // <&n duplicates
		}
		_, ok := l.target()
		return ok
	}
	switch next {
	case '(':
		return false
	case '>', '|':
		l.i++
	case '&':
		// >&n duplicates a descriptor; >&word (not a number) writes a file.
		l.i++
		w, ok := l.target()
		if !ok {
			return false
		}
		if (isDigits(w.text) || w.text == "-") && !w.expands {
			return true
		}
		return w.text == "/dev/null" && !w.expands
	}
	return l.fileTarget()
}

// fileTarget reads the file an output redirection writes: only /dev/null
// writes nothing.
func (l *lexer) fileTarget() bool {
	w, ok := l.target()
	return ok && w.text == "/dev/null" && !w.expands
}

// target reads a redirection's word.
func (l *lexer) target() (word, bool) {
	for l.i < len(l.s) && (l.s[l.i] == ' ' || l.s[l.i] == '\t') {
		l.i++
	}
	if l.i >= len(l.s) || strings.IndexByte(metachars, l.s[l.i]) >= 0 {
		return word{}, false
	}
	return l.word()
}

// metachars end a word.
const metachars = " \t\n;&|<>()"

// word reads one word, removing quotes and backslashes.
func (l *lexer) word() (word, bool) {
	var b strings.Builder
	var w word
	for l.i < len(l.s) {
		c := l.s[l.i]
		if strings.IndexByte(metachars, c) >= 0 {
			break
		}
		switch c {
		case '\\':
			w.quoted = true
			if l.i+1 >= len(l.s) {
				return word{}, false
			}
			if l.s[l.i+1] != '\n' { // backslash-newline joins lines
				b.WriteByte(l.s[l.i+1])
			}
			l.i += 2
		case '\'':
			w.quoted = true
			end := strings.IndexByte(l.s[l.i+1:], '\'')
			if end < 0 {
				return word{}, false
			}
			b.WriteString(l.s[l.i+1 : l.i+1+end])
			l.i += end + 2
		case '"':
			w.quoted = true
			l.i++
			if !l.doubleQuoted(&b, &w) {
				return word{}, false
			}
		case '`':
			return word{}, false
		case '$':
			if !l.dollar() {
				return word{}, false
			}
			w.expands = true
			b.WriteByte(c)
			l.i++
		case '*', '?', '[', '{':
			w.expands = true
			b.WriteByte(c)
			l.i++
		default:
			b.WriteByte(c)
			l.i++
		}
	}
	w.text = b.String()
	return w, true
}

// doubleQuoted reads up to the closing quote. Inside, $ and backticks still
// expand, and a backslash escapes only $ ` " \ and newline.
func (l *lexer) doubleQuoted(b *strings.Builder, w *word) bool {
	for l.i < len(l.s) {
		c := l.s[l.i]
		switch c {
		case '"':
			l.i++
			return true
		case '`':
			return false
		case '$':
			if !l.dollar() {
				return false
			}
			w.expands = true
		case '\\':
			if n := l.peek(1); n != 0 && strings.IndexByte("$`\"\\\n", n) >= 0 {
				if n != '\n' {
					b.WriteByte(n)
				}
				l.i += 2
				continue
			}
		}
		b.WriteByte(c)
		l.i++
	}
	return false // unterminated
}

// dollar accepts a $ at l.i only as a plain parameter ($name, $1, $?…):
// $( runs a command, ${ and $[ can evaluate arithmetic that runs one, and
// $'…' has its own escapes that would put this lexer out of step with bash.
func (l *lexer) dollar() bool {
	switch l.peek(1) {
	case '(', '{', '[', '\'':
		return false
	}
	return true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// readOnlyPrograms are the programs whose simple commands may be probes;
// the value checks their arguments (nil: any arguments).
var readOnlyPrograms = map[string]func(args []word) bool{
	"ls": nil, "cat": nil, "head": nil, "tail": nil, "wc": nil, "pwd": nil,
	"echo": nil, "grep": nil, "stat": nil, "which": nil, "uname": nil,
	"du": nil, "df": nil, "cd": nil,
	"git":  gitReadOnly,
	"find": checked(findReadOnly),
	"rg":   checked(rgReadOnly),
	"date": checked(dateReadOnly),
	"tree": checked(treeReadOnly),
	"file": checked(fileReadOnly),
	"env":  func(args []word) bool { return len(args) == 0 },
}

// readOnly reports whether one simple command only reads.
func readOnly(c []word) bool {
	name := c[0]
	if name.expands {
		return false
	}
	check, ok := readOnlyPrograms[name.text]
	if !ok {
		return false
	}
	return check == nil || check(c[1:])
}

// checked wraps the argument check of a program with write options: an
// argument that expands could become such an option (a file named
// "-delete" matched by *), so it is refused before the check runs.
func checked(f func(args []string) bool) func([]word) bool {
	return func(args []word) bool {
		texts := make([]string, len(args))
		for i, a := range args {
			if a.expands {
				return false
			}
			texts[i] = a.text
		}
		return f(texts)
	}
}

// gitReadOnlySubcommands are the git subcommands that only read (branch
// with its listing options only).
var gitReadOnlySubcommands = map[string]bool{
	"status": true, "log": true, "diff": true, "show": true, "branch": true,
	"rev-parse": true, "ls-files": true, "blame": true,
}

// gitBranchListing are the options with which git branch lists and
// changes nothing.
var gitBranchListing = map[string]bool{
	"-a": true, "--all": true, "-r": true, "--remotes": true, "-v": true, "-vv": true,
	"--verbose": true, "-l": true, "--list": true, "--show-current": true,
	"--no-color": true, "--color": true, "--no-abbrev": true,
	"--merged": true, "--no-merged": true, "--contains": true, "--no-contains": true,
}

var gitReadOnly = checked(func(args []string) bool {
	// Global options: only those that change nothing; -c could set
	// core.fsmonitor or a pager to any program.
	i := 0
global:
	for i < len(args) {
		switch args[i] {
		case "--no-pager":
			i++
		case "-C":
			i += 2
		default:
			break global
		}
	}
	if i >= len(args) || !gitReadOnlySubcommands[args[i]] {
		return false
	}
	sub, rest := args[i], args[i+1:]
	for _, a := range rest {
		// --output=file writes (log, show and diff take it); git
		// accepts an unambiguous abbreviation of a long option, so its
		// prefixes count too.
		if strings.HasPrefix(a, "--output") || hasLongOption([]string{a}, "output") {
			return false
		}
	}
	if sub != "branch" {
		return true
	}
	listing := false
	for _, a := range rest {
		if a == "-l" || a == "--list" {
			listing = true
		}
	}
	for _, a := range rest {
		if strings.HasPrefix(a, "-") {
			if !gitBranchListing[a] && !strings.HasPrefix(a, "--sort=") && !strings.HasPrefix(a, "--format=") &&
				!strings.HasPrefix(a, "--color=") && !strings.HasPrefix(a, "--abbrev=") {
				return false
			}
			continue
		}
		if !listing { // "git branch name" creates a branch
			return false
		}
	}
	return true
})

func findReadOnly(args []string) bool {
	for _, a := range args {
		switch a {
		case "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fls", "-fprint", "-fprint0", "-fprintf":
			return false
		}
	}
	return true
}

func rgReadOnly(args []string) bool {
	for _, a := range args {
		// --pre runs a program on every file; --hostname-bin runs one too.
		if strings.HasPrefix(a, "--pre") || strings.HasPrefix(a, "--hostname-bin") {
			return false
		}
	}
	return true
}

func dateReadOnly(args []string) bool {
	return !hasShortOption(args, 's') && !hasLongOption(args, "set")
}

func treeReadOnly(args []string) bool {
	// -o writes the listing to a file; -R writes one in every directory.
	return !hasShortOption(args, 'o') && !hasShortOption(args, 'R')
}

func fileReadOnly(args []string) bool {
	return !hasShortOption(args, 'C') && !hasLongOption(args, "compile")
}

// hasShortOption reports whether an argument is a cluster of short options
// ("-us") holding letter. A letter inside an option's value ("-d sunday"
// written "-dsunday") counts too: a false alarm costs a question only.
func hasShortOption(args []string, letter byte) bool {
	for _, a := range args {
		if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], letter) >= 0 {
			return true
		}
	}
	return false
}

// hasLongOption reports whether an argument is --name or an abbreviation
// of it (getopt_long accepts any unambiguous prefix), with or without
// "=value".
func hasLongOption(args []string, name string) bool {
	for _, a := range args {
		opt, ok := strings.CutPrefix(a, "--")
		if !ok || opt == "" {
			continue
		}
		opt, _, _ = strings.Cut(opt, "=")
		if strings.HasPrefix(name, opt) {
			return true
		}
	}
	return false
}
