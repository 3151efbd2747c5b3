package shell

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/moteur/moteur/effect"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/moteur/moteur/shellcmd"
)

// What the tool tells the policy about a call — its risk class, whether
// the user must confirm it whatever the rules say, and how an approval
// prompt shows it — all comes from the one reading of the command line in
// package shellcmd, the one the permission rules use too.

// RiskOf implements tools.RiskAssessor, from the command, its env, its
// stdin and its work_dir as Execute would run them:
//
//   - probe: every command of the line (and of a script the line gives a
//     shell as text) is a read-only program with harmless arguments, and
//     nothing is written through a redirection (shellcmd.Probe);
//   - destructive: a command destroys data (rm, git reset --hard, dd, a >
//     over an existing file, … see shellcmd.Destructive), including one in
//     the script a shell reads from stdin;
//   - write: anything else, and every call whose arguments Execute would
//     refuse, whose line does not parse, or whose env sets a variable that
//     is not on shellcmd.SafeEnv.
func (e *Exec) RiskOf(raw json.RawMessage) effect.Risk {
	a, err := parseArgs(raw)
	if err != nil {
		return effect.RiskWrite
	}
	wd, _, err := e.callDir(a)
	if err != nil {
		return effect.RiskWrite
	}
	return e.risk(a, wd, read(a))
}

// risk is RiskOf of a call run in wd.
func (e *Exec) risk(a args, wd string, r reading) effect.Risk {
	if r.err != nil {
		return effect.RiskWrite
	}
	exists := e.existsFrom(wd, r.line)
	class := r.line.Class(exists)
	if r.fromStdin && r.stdin != nil {
		class = max(class, r.stdin.Class(exists))
	}
	for k, v := range a.Env {
		if shellcmd.EnvOf(k, v) != shellcmd.EnvSafe {
			class = max(class, shellcmd.Write)
		}
	}
	switch class {
	case shellcmd.Probe:
		return effect.RiskProbe
	case shellcmd.Destructive:
		return effect.RiskDestructive
	}
	return effect.RiskWrite
}

// MustConfirm implements tools.Confirmer: a call the user must confirm in
// every mode, because no reading of its text can tell what it runs — the
// line does not parse, or a command's program or code is computed at run
// time ($(…) or ${…} as the program, eval, source, bash -c "$script", an
// assignment to PATH, arithmetic on a variable, …), in the command or in
// the script a shell reads from stdin; or the tool's shell is not bash and
// reads the line differently from the rules, which are bash's reading.
func (e *Exec) MustConfirm(raw json.RawMessage) string {
	a, err := parseArgs(raw)
	if err != nil {
		return "" // Execute refuses it and runs nothing
	}
	r := read(a)
	if r.err != nil {
		return fmt.Sprintf("Moteur cannot parse this command line (%v), so no rule can tell what it would run.", r.err)
	}
	if why := r.line.Computed(); why != "" {
		return "What this command runs is only known when it runs (" + why + "), so no rule can vouch for it."
	}
	if r.fromStdin {
		if r.stdin == nil {
			return "The script this command reads from stdin cannot be parsed, so no rule can tell what it would run."
		}
		if why := r.stdin.Computed(); why != "" {
			return "What the script given on stdin runs is only known when it runs (" + why + "), so no rule can vouch for it."
		}
	}
	if filepath.Base(e.shell) != "bash" {
		posix, err := shellcmd.ParsePOSIX(a.Command)
		if err != nil || !slices.Equal(posix.Programs(), r.line.Programs()) {
			return fmt.Sprintf("The shell here is %s, not bash, and it may read this line differently from the permission rules, which read it as bash does.", e.shell)
		}
	}
	return ""
}

// reading is the one parse of a call's command line, and of the script a
// shell of the line reads from the call's stdin.
type reading struct {
	line *shellcmd.Line
	err  error // the line's; when set, the stdin is not read
	// fromStdin: a shell of the line reads the call's stdin as its script,
	// stdin, which is nil when it does not parse.
	fromStdin bool
	stdin     *shellcmd.Line
}

// read parses a call's command line and the script its stdin is.
func read(a args) reading {
	var r reading
	if r.line, r.err = shellcmd.Parse(a.Command); r.err != nil {
		return r
	}
	if a.Stdin != "" && r.line.ScriptFromStdin() {
		r.fromStdin = true
		if in, err := shellcmd.Parse(a.Stdin); err == nil {
			r.stdin = in
		}
	}
	return r
}

// maxDirs bounds the working directories a line is followed through.
const maxDirs = 16

// dirs returns the directories the line's commands may run in: wd, and
// every directory a literal cd or pushd leads to from there, one after
// the other (over-approximated: a cd in a subshell counts for the rest of
// the line too). known is false when a cd goes somewhere only known at run
// time (cd, cd -, cd "$d", popd) or there are too many.
func dirs(wd string, line *shellcmd.Line) (out []string, known bool) {
	out = []string{wd}
	for _, c := range line.Commands {
		if c.Program != "cd" && c.Program != "pushd" && c.Program != "popd" {
			continue
		}
		var target *shellcmd.Word
		for i := range c.Words[1:] {
			w := &c.Words[1+i]
			if w.Text == "--" || strings.HasPrefix(w.Text, "-") && w.Text != "-" && w.Literal {
				continue
			}
			target = w
			break
		}
		if c.Program == "popd" || target == nil || !target.Literal || target.Text == "-" || strings.HasPrefix(target.Text, "~") {
			return out, false
		}
		for _, d := range out {
			next := target.Text
			if !filepath.IsAbs(next) {
				next = filepath.Join(d, next)
			}
			if next = filepath.Clean(next); !slices.Contains(out, next) {
				out = append(out, next)
			}
		}
		if len(out) > maxDirs {
			return out, false
		}
	}
	return out, true
}

// existsFrom is the shellcmd.Exists of a line run in wd: a target exists
// when it does in one of the directories the line may be in, or when that
// cannot be told (a ~ path, a cd only known at run time, an error other
// than "does not exist").
func (e *Exec) existsFrom(wd string, line *shellcmd.Line) shellcmd.Exists {
	ds, known := dirs(wd, line)
	return func(target string) bool {
		if strings.HasPrefix(target, "~") {
			return true
		}
		if filepath.IsAbs(target) {
			return present(target)
		}
		if !known {
			return true
		}
		for _, d := range ds {
			if present(filepath.Join(d, target)) {
				return true
			}
		}
		return false
	}
}

func present(p string) bool {
	_, err := os.Lstat(p)
	return err == nil || !errors.Is(err, fs.ErrNotExist)
}

// checkRedirects refuses, for a command run without the sandbox, a
// redirection that writes outside the project: a > /etc/x or >> ../x, one
// through a symbolic link that leads out, one whose target is only known
// at run time. With bubblewrap the rest of the file system is read-only
// and no such check is needed. A line that does not parse was confirmed by
// the user as it is (MustConfirm) and is not judged here.
func (e *Exec) checkRedirects(r reading, wd string) error {
	if r.err != nil {
		return nil
	}
	cmds := r.line.Commands
	if r.stdin != nil {
		cmds = append(slices.Clip(cmds), r.stdin.Commands...)
	}
	ds, known := dirs(wd, &shellcmd.Line{Commands: cmds})
	for _, c := range cmds {
		for _, r := range c.Redirs {
			if !r.Writes() {
				continue
			}
			redir := r.Fd + r.Op + " " + r.Target.Text
			switch t := r.Target.Text; {
			case !r.Target.Literal:
				return fmt.Errorf("the redirection %q writes to a file only known at run time; without a sandbox, a command may write through a redirection only inside the project (%s). Name the file literally", redir, e.root)
			case strings.HasPrefix(t, "~"):
				return fmt.Errorf("the redirection %q writes under a home directory, outside the project (%s); without a sandbox, a command may write through a redirection only inside the project", redir, e.root)
			case filepath.IsAbs(t):
				if !e.inside(t) {
					return fmt.Errorf("the redirection %q writes outside the project (%s); without a sandbox, a command may write through a redirection only inside the project (or to /dev/null, /dev/stdout, /dev/stderr)", redir, e.root)
				}
			case !known:
				return fmt.Errorf("the redirection %q is relative to a directory the command changes to at run time; without a sandbox, Moteur cannot tell that it stays inside the project (%s)", redir, e.root)
			default:
				for _, d := range ds {
					if !e.inside(filepath.Join(d, t)) {
						return fmt.Errorf("the redirection %q writes outside the project (%s) from %s; without a sandbox, a command may write through a redirection only inside the project", redir, e.root, d)
					}
				}
			}
		}
	}
	return nil
}

// inside reports whether writing p stays inside the project: p is under
// the root (as resolved or as configured) and so is what the longest part
// of it that exists resolves to, so that a symbolic link cannot lead out.
func (e *Exec) inside(p string) bool {
	p = filepath.Clean(p)
	if !within(e.root, p) && !within(e.rootAlias, p) {
		return false
	}
	dir, rest := p, ""
	for {
		if _, err := os.Lstat(dir); err == nil {
			real, err := filepath.EvalSymlinks(dir)
			if err != nil {
				return false // a dangling link: where it leads is unknown
			}
			return within(e.root, filepath.Join(real, rest))
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

// summaryMax bounds Summary, in runes, as the approval prompt's line is.
const summaryMax = 300

// Summary implements tools.Summarizer: the command, where it runs, the
// variables it sets and what it gets on stdin, so that what the user
// approves is the whole call and not only its command line.
func (e *Exec) Summary(raw json.RawMessage) string {
	var a rawArgs
	if json.Unmarshal(raw, &a) != nil {
		return ""
	}
	var extra []string
	if a.SkillName != "" {
		extra = append(extra, "in the directory of skill "+clipRunes(a.SkillName, 64))
	}
	if a.WorkDir != "" && a.WorkDir != "." {
		extra = append(extra, "in "+clipRunes(a.WorkDir, 60))
	}
	if len(a.Env) > 0 {
		keys := make([]string, 0, len(a.Env))
		for k := range a.Env {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var kv []string
		for i, k := range keys {
			if i == 6 {
				kv = append(kv, fmt.Sprintf("and %d more", len(keys)-i))
				break
			}
			kv = append(kv, clipRunes(k, 40)+"="+clipRunes(oneLine(a.Env[k]), 40))
		}
		extra = append(extra, "env "+strings.Join(kv, " "))
	}
	if a.Stdin != "" {
		first, _, _ := strings.Cut(a.Stdin, "\n")
		lines := strings.Count(a.Stdin, "\n")
		if !strings.HasSuffix(a.Stdin, "\n") {
			lines++
		}
		extra = append(extra, fmt.Sprintf("stdin (%d bytes, %d lines): %s", len(a.Stdin), lines, clipRunes(oneLine(first), 60)))
	}
	tail := ""
	if len(extra) > 0 {
		tail = " — " + strings.Join(extra, " — ")
	}
	room := max(summaryMax-utf8.RuneCountInString(tail), 80)
	return clipRunes(oneLine(a.Command), room) + tail
}

// oneLine collapses blanks and line breaks, as a one-line prompt shows
// text.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
