package shellcmd

import (
	"errors"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Line is a parsed command line.
type Line struct {
	// Commands are every simple command the line would run, in the order
	// bash would start them as far as the text tells (the commands of a
	// substitution before the command whose words hold it), each followed
	// by the commands it reaches (Command.Via).
	Commands []*Command
	// err is Parse's error: a line that does not parse is never a probe.
	err error
}

// Command is one simple command.
type Command struct {
	// Text is the command's source, for messages: its words, assignments
	// and redirections as written (for a command reached through a
	// wrapper, the wrapped part).
	Text string
	// Assigns are the NAME=value words before the program (or, for env,
	// sudo and declare, among its arguments).
	Assigns []Assign
	// Words are the program and its arguments; empty for a command made
	// only of assignments or redirections.
	Words []Word
	// Redirs are the command's redirections, those of the compound
	// commands around it included ({ a; b; } > f writes from a and b),
	// and for a command reached through a wrapper, the wrapper's.
	Redirs []Redir
	// Program is the name of the program that runs: the first word, or
	// its base name when written as a path (/usr/bin/rm and ./rm are rm);
	// "" when there is no word or it is computed.
	Program string
	// Computed says, when not "", why what this command runs cannot be
	// known before it runs: a program name made by an expansion, eval,
	// source, a script given as a variable, an assignment to PATH, …
	Computed string
	// Via is "" for a command written in the line itself (substitutions
	// and bodies included). For a command the line reaches through another
	// one, it names that one: "sudo", "xargs", "find -exec", "bash -c",
	// "eval", "trap", "stdin of bash".
	Via string
	// Pipe reports that the command's standard input comes from another
	// command of a pipeline (a | b: b's), not from the call's stdin.
	Pipe bool
	// ScriptFromStdin reports a shell (bash, sh…) that reads its script
	// from the call's standard input: no redirection or pipe feeds it.
	ScriptFromStdin bool
	// Noop reports a command that runs no program and changes nothing
	// outside the shell: assignments to ordinary variables, a redirection
	// that only reads, (( )) and [[ ]] on constants, declare or export of
	// ordinary variables. It needs no rule.
	Noop bool
}

// Assign is one variable assignment.
type Assign struct {
	Name  string
	Value Word // Text is "" for an array value
	// Array reports a=(…) or a[i]=…: bash evaluates subscripts.
	Array bool
}

// Word is one shell word.
type Word struct {
	// Text is the word after quote removal ('r''m' and \rm are rm, $'\x72m'
	// is rm); expansions are kept as written ($HOME/x).
	Text string
	// Literal reports a word that is the same string however the line is
	// run: no parameter, command, arithmetic or process substitution, no
	// unquoted glob, extended glob or brace expansion.
	Literal bool
	// Expands reports parameter, command, arithmetic or process
	// substitution in the word.
	Expands bool
	// Glob reports unquoted pattern characters (* ? [), extended globs or
	// a brace expansion: the word may become other words.
	Glob bool
}

// Redir is one redirection.
type Redir struct {
	// Fd is the file descriptor as written before the operator ("2" in
	// 2>f), "" for the default.
	Fd string
	// Op is the operator: > >> >| < <> >& <& &> &>> << <<- <<<.
	Op string
	// Target is the file, the descriptor (>&2), the here-string, or the
	// here-document's delimiter.
	Target Word
	// Body is the text of a here-document, quote removal done.
	Body string
	// BodyLiteral reports a here-document whose body is fixed text: its
	// delimiter is quoted, or the body holds no expansion.
	BodyLiteral bool
	// Opens reports an operator that opens Target as a file for writing
	// (> >> >| <> &> &>>, and >& with a word that is not a descriptor).
	Opens bool
	// Truncates reports the operators that empty the file they open
	// (> >| &> >&file), unlike >> and <>.
	Truncates bool
}

// Writes reports a redirection that can change a file: one that opens a
// file for writing, other than the devices that store nothing (/dev/null,
// /dev/stdout, /dev/stderr, /dev/fd/N). A target that is not literal may
// be any file, so it writes.
func (r Redir) Writes() bool {
	if !r.Opens {
		return false
	}
	return !r.Target.Literal || !HarmlessDevice(r.Target.Text)
}

// Network reports a redirection to bash's /dev/tcp or /dev/udp, which
// opens a connection.
func (r Redir) Network() bool {
	t := r.Target.Text
	return strings.HasPrefix(t, "/dev/tcp/") || strings.HasPrefix(t, "/dev/udp/")
}

// HarmlessDevice reports the paths a redirection may write without
// changing a file.
func HarmlessDevice(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr":
		return true
	}
	n, ok := strings.CutPrefix(p, "/dev/fd/")
	return ok && isDigits(n)
}

// Errors of Parse, wrapped in a *SyntaxError.
var (
	// ErrSyntax is a line bash's grammar (as mvdan.cc/sh reads it) refuses.
	ErrSyntax = errors.New("shell syntax error")
	// ErrTooLong is a line longer than MaxLen.
	ErrTooLong = errors.New("command line too long")
	// ErrTooDeep is nesting beyond MaxDepth.
	ErrTooDeep = errors.New("command line nested too deeply")
)

// MaxLen bounds the length of a line Parse reads, so that hostile input
// cannot make it use unbounded time or memory; no real command is close.
const MaxLen = 1 << 20

// MaxDepth bounds the nesting of compound commands, substitutions and
// scripts given as text (bash -c 'bash -c …'); beyond it a line is refused.
const MaxDepth = 64

// SyntaxError says why a line could not be parsed.
type SyntaxError struct {
	Err error // wraps one of the Err values above
}

func (e *SyntaxError) Error() string { return "shell command: " + e.Err.Error() }

func (e *SyntaxError) Unwrap() error { return e.Err }

// Parse reads src as bash reads the script of `bash -c src`. On error, the
// returned Line holds the commands that could be made out (mvdan's error
// recovery), fit only for deny checks; the error is a *SyntaxError.
func Parse(src string) (*Line, error) {
	return parse(src, syntax.LangBash)
}

// ParsePOSIX reads src as a POSIX sh does, for a tool whose shell is not
// bash: where the two readings differ, rules written for one do not hold
// for the other.
func ParsePOSIX(src string) (*Line, error) {
	return parse(src, syntax.LangPOSIX)
}

func parse(src string, lang syntax.LangVariant) (*Line, error) {
	if len(src) > MaxLen {
		err := &SyntaxError{Err: fmt.Errorf("%w: %d bytes, at most %d", ErrTooLong, len(src), MaxLen)}
		return &Line{err: err}, err
	}
	if why := tooNested(src); why != "" {
		err := &SyntaxError{Err: fmt.Errorf("%w: %s", ErrTooDeep, why)}
		return &Line{err: err}, err
	}
	w := &walker{lang: lang, substEnd: -1}
	err := w.script(src, 0, "", false)
	return &Line{Commands: w.cmds, err: err}, err
}

// Bounds of tooNested, far beyond any real command line.
const (
	maxBrackets = 4 * MaxDepth // open ( { [ at once
	maxChain    = 4096         // | and & in a line
)

// tooNested refuses, before mvdan's recursive parser sees it, input that
// would make it recurse without bound — thousands of nested parentheses,
// or pipelines and && chains thousands long, which it reads as nested
// nodes — and exhaust the stack, which no recover can catch. The count
// ignores quotes: it only has to be an upper bound.
func tooNested(src string) string {
	depth, chain := 0, 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '(', '{', '[':
			if depth++; depth > maxBrackets {
				return fmt.Sprintf("more than %d brackets open at once", maxBrackets)
			}
		case ')', '}', ']':
			depth = max(depth-1, 0)
		case '|', '&':
			if chain++; chain > maxChain {
				return fmt.Sprintf("more than %d | and & in one line", maxChain)
			}
		}
	}
	return ""
}

// Programs returns the names of the programs the line runs, computed ones
// as "", in order: a cheap way to compare two readings of a line.
func (l *Line) Programs() []string {
	out := make([]string, len(l.Commands))
	for i, c := range l.Commands {
		out[i] = c.Program
	}
	return out
}

// Computed returns the first Computed reason of the line's commands, or "".
func (l *Line) Computed() string {
	for _, c := range l.Commands {
		if c.Computed != "" {
			return c.Computed
		}
	}
	return ""
}

// ScriptFromStdin reports whether a command of the line is a shell that
// reads its script from the call's standard input (Command.ScriptFromStdin).
func (l *Line) ScriptFromStdin() bool {
	for _, c := range l.Commands {
		if c.ScriptFromStdin {
			return true
		}
	}
	return false
}

// Args returns the texts of the words after the program.
func (c *Command) Args() []string {
	if len(c.Words) < 2 {
		return nil
	}
	return texts(c.Words[1:])
}

// Texts returns the texts of every word, the program's included.
func (c *Command) Texts() []string { return texts(c.Words) }

// Normalized returns the command's words as deny rules should also see
// them, or nil when they are the words as written: the program's base
// name for a program written as a path (/bin/rm → rm), and for git the
// subcommand right after the program, its global options dropped
// (git -C dir -c k=v push → git push).
func (c *Command) Normalized() []string {
	words := c.Texts()
	if len(words) == 0 || c.Program == "" {
		return nil
	}
	changed := false
	if words[0] != c.Program {
		words[0], changed = c.Program, true
	}
	if c.Program == "git" {
		if sub, rest, globals := gitSub(words[1:]); sub != "" && len(globals) > 0 {
			words = append([]string{"git", sub}, rest...)
			changed = true
		}
	}
	if !changed {
		return nil
	}
	return words
}

// WritesFile reports whether one of the command's redirections writes.
func (c *Command) WritesFile() bool {
	for _, r := range c.Redirs {
		if r.Writes() {
			return true
		}
	}
	return false
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
