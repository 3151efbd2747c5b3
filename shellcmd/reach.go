package shellcmd

import (
	"slices"
	"strings"
)

// A wrapper is a program that runs another one named in its arguments:
// env rm x runs rm. spec says how to find where the wrapped command
// starts.
type spec struct {
	short    string   // short options that take a value (-n 5, -n5)
	long     []string // long options that take a value when not written --opt=value
	operands int      // words between the options and the command (timeout's duration)
	assigns  bool     // NAME=value words may come before the command (env, sudo)
	numeric  bool     // -NUM is an option (nice -10)
	dash     bool     // "-" alone is an option (env -)
}

// wrappers are the programs Moteur sees through, so that deny rules and
// risk classes meet the command they run.
var wrappers = map[string]spec{
	"env":     {short: "uCS", long: []string{"unset", "chdir", "split-string"}, assigns: true, dash: true},
	"command": {},
	"exec":    {short: "a"},
	"builtin": {},
	"nice":    {short: "n", long: []string{"adjustment"}, numeric: true},
	"nohup":   {},
	"timeout": {short: "sk", long: []string{"signal", "kill-after"}, operands: 1},
	"sudo": {short: "ugpCDrtTUcR", long: []string{"user", "group", "prompt", "close-from", "chdir",
		"role", "type", "command-timeout", "other-user", "login-class", "chroot"}, assigns: true},
	"doas":     {short: "uC"},
	"stdbuf":   {short: "ioe", long: []string{"input", "output", "error"}},
	"time":     {short: "fo", long: []string{"format", "output"}},
	"xargs":    {short: "aEILnPsd", long: []string{"arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"}},
	"setsid":   {},
	"ionice":   {short: "cn", long: []string{"class", "classdata"}},
	"chroot":   {long: []string{"userspec", "groups"}, operands: 1},
	"taskset":  {operands: 1},
	"busybox":  {},
	"flock":    {short: "wE", long: []string{"timeout", "conflict-exit-code"}, operands: 1},
	"watch":    {short: "n", long: []string{"interval"}},
	"unbuffer": {},
}

// shells are the programs that run a script given with -c, from a file
// or from their standard input.
var shells = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true,
	"ash": true, "yash": true, "posh": true, "rbash": true,
}

// reach adds the commands cmd runs in its turn: through a wrapper, as a
// script given as text, or through find -exec.
func (w *walker) reach(cmd *Command, depth int) {
	args := cmd.Words[1:]
	switch p := cmd.Program; {
	case p == "eval":
		setComputed(cmd, "eval runs its arguments as commands")
		if script, ok := literalJoin(args); ok {
			w.sub(cmd, script, "eval", cmd.Pipe, depth)
		} else {
			w.guess(strings.Join(texts(args), " "), "eval", depth)
		}
	case p == "source" || p == ".":
		setComputed(cmd, p+" runs the commands of a file")
	case p == "alias":
		setComputed(cmd, "alias changes what a command name runs")
		for _, a := range args {
			if _, v, ok := strings.Cut(a.Text, "="); ok && a.Literal {
				w.sub(cmd, v, "alias", false, depth)
			}
		}
	case p == "hash" && slices.ContainsFunc(args, func(a Word) bool { return strings.HasPrefix(a.Text, "-") && strings.Contains(a.Text, "p") }):
		setComputed(cmd, "hash -p changes which file a command name runs")
	case p == "enable":
		setComputed(cmd, "enable loads or hides shell builtins")
	case p == "trap":
		w.trap(cmd, args, depth)
	case p == "find":
		w.find(cmd, args, depth)
	case p == "git":
		w.gitConfig(cmd, args, depth)
	case shells[p]:
		w.shell(cmd, args, depth)
	case p == "su" || p == "script":
		// su -c 'cmd', script -c 'cmd'; su alone runs a shell that
		// reads its script from stdin.
		if p == "su" && !slices.ContainsFunc(args, func(a Word) bool {
			return a.Text == "-c" || a.Text == "--command" || strings.HasPrefix(a.Text, "--command=")
		}) {
			w.stdinScript(cmd, depth)
		}
		for i, a := range args {
			script, ok := "", false
			switch {
			case a.Text == "-c" || a.Text == "--command":
				if i+1 < len(args) {
					script, ok = args[i+1].Text, true
					if !args[i+1].Literal {
						setComputed(cmd, "the command "+p+" -c runs is computed at run time")
						ok = false
					}
				}
			case strings.HasPrefix(a.Text, "--command="):
				script, ok = strings.TrimPrefix(a.Text, "--command="), a.Literal
			}
			if ok {
				w.sub(cmd, script, p+" -c", false, depth)
			}
		}
	case p == "command" && slices.ContainsFunc(args, func(a Word) bool { return a.Text == "-v" || a.Text == "-V" }):
		// command -v only says what a name is.
	default:
		sp, ok := wrappers[p]
		if !ok {
			w.nameEval(cmd, args)
			return
		}
		w.wrapped(cmd, args, sp, depth)
	}
}

// nameEval marks builtins that take variable names whose subscripts bash
// evaluates: printf -v 'a[$(cmd)]' runs cmd. Only the words that are
// names are looked at (printf's format may well hold a '[').
func (w *walker) nameEval(cmd *Command, args []Word) {
	var names []Word
	after := func(flags ...string) {
		for i, a := range args {
			if slices.Contains(flags, a.Text) && i+1 < len(args) {
				names = append(names, args[i+1])
			}
		}
	}
	switch cmd.Program {
	case "printf":
		after("-v")
	case "wait":
		after("-p")
	case "test", "[":
		after("-v", "-R")
	case "read", "unset", "mapfile", "readarray", "getopts":
		for _, a := range args {
			if !strings.HasPrefix(a.Text, "-") {
				names = append(names, a)
			}
		}
	default:
		return
	}
	for _, a := range names {
		if i := strings.IndexByte(a.Text, '['); i >= 0 && !isDigits(strings.TrimSuffix(a.Text[i+1:], "]")) {
			setComputed(cmd, cmd.Program+" "+clip(a.Text)+": bash evaluates the subscript of a variable name")
			return
		}
	}
}

// wrapped finds the command a wrapper runs and adds it.
func (w *walker) wrapped(cmd *Command, args []Word, sp spec, depth int) {
	p := cmd.Program
	var assigns []Assign
	i := 0
options:
	for i < len(args) {
		a := args[i]
		if !a.Literal {
			setComputed(cmd, "the arguments of "+p+" are computed at run time, so the command it runs is unknown")
			return
		}
		t := a.Text
		switch {
		case t == "--":
			i++
			break options
		case sp.assigns && isEnvAssign(t):
			assigns = append(assigns, envAssign(t))
			i++
		case t == "-" && sp.dash:
			i++
		case len(t) > 1 && strings.HasPrefix(t, "--"):
			name, _, eq := strings.Cut(t[2:], "=")
			if p == "env" && name == "split-string" {
				w.envSplit(cmd, args, i, eq, depth)
				return
			}
			i++
			if !eq && slices.Contains(sp.long, name) {
				i++
			}
		case len(t) > 1 && t[0] == '-':
			if sp.numeric && isDigits(t[1:]) {
				i++
				continue
			}
			takes := false
			for j := 1; j < len(t); j++ {
				if strings.IndexByte(sp.short, t[j]) >= 0 {
					if p == "env" && t[j] == 'S' {
						w.envSplit(cmd, args, i, j+1 < len(t), depth)
						return
					}
					takes = j == len(t)-1
					break
				}
			}
			i++
			if takes {
				i++
			}
		default:
			break options
		}
	}
	i += sp.operands
	var rest []Word
	if i < len(args) {
		rest = args[i:]
	}
	if sp.assigns {
		for len(rest) > 0 && rest[0].Literal && isEnvAssign(rest[0].Text) {
			assigns = append(assigns, envAssign(rest[0].Text))
			rest = rest[1:]
		}
	}
	switch p {
	case "xargs":
		if len(rest) == 0 {
			rest = []Word{{Text: "echo", Literal: true}}
		}
	case "flock":
		if len(rest) > 1 && (rest[0].Text == "-c" || rest[0].Text == "--command") {
			if !rest[1].Literal {
				setComputed(cmd, "the command flock -c runs is computed at run time")
				return
			}
			w.sub(cmd, rest[1].Text, "flock -c", cmd.Pipe, depth)
			return
		}
	case "watch":
		// watch runs its arguments joined by spaces with sh -c, unless
		// -x says to run them as they are.
		if !slices.ContainsFunc(args[:i], func(a Word) bool { return a.Text == "-x" || a.Text == "--exec" }) {
			if script, ok := literalJoin(rest); ok && script != "" {
				w.sub(cmd, script, "watch", false, depth)
			} else if !ok {
				setComputed(cmd, "the command watch runs is computed at run time")
			}
			return
		}
	}
	if len(rest) == 0 && len(assigns) == 0 {
		if p == "sudo" || p == "doas" {
			if ta := texts(args); hasShortOption(ta, 's') || hasShortOption(ta, 'i') {
				w.stdinScript(cmd, depth) // sudo -s: a shell reading stdin
			}
		}
		return // env alone prints, sudo -v validates, nohup alone fails
	}
	text := make([]string, 0, len(assigns)+len(rest))
	for _, a := range assigns {
		text = append(text, a.Name+"="+a.Value.Text)
	}
	for _, r := range rest {
		text = append(text, r.Text)
	}
	// The wrapped program gets the wrapper's file descriptors: its
	// redirections are the inner command's too.
	inner := &Command{Text: strings.Join(text, " "), Assigns: assigns, Words: rest, Via: p, Pipe: cmd.Pipe, Redirs: cmd.Redirs}
	if w.deeper(depth + 1) {
		setComputed(cmd, "wrappers nested too deeply")
		return
	}
	w.finish(inner, depth+1)
}

// envSplit handles env -S STRING / --split-string=STRING, which splits a
// string into a command line of its own.
func (w *walker) envSplit(cmd *Command, args []Word, i int, attached bool, depth int) {
	setComputed(cmd, "env -S splits a string into the command it runs")
	var s string
	switch t := args[i].Text; {
	case strings.HasPrefix(t, "--"):
		_, v, ok := strings.Cut(t, "=")
		if !ok {
			if i+1 >= len(args) {
				return
			}
			v = args[i+1].Text
			i++
		}
		s = v
	case attached:
		s = t[strings.IndexByte(t, 'S')+1:]
	default:
		if i+1 >= len(args) {
			return
		}
		s = args[i+1].Text
		i++
	}
	if rest, ok := literalJoin(args[i+1:]); ok {
		w.sub(cmd, strings.TrimSpace(s+" "+rest), "env -S", cmd.Pipe, depth)
	}
}

// shell handles sh, bash and the like: the script of -c, or the one read
// from a here-document or here-string.
func (w *walker) shell(cmd *Command, args []Word, depth int) {
	p := cmd.Program
	hasC, stdin := false, false
	i := 0
options:
	for i < len(args) {
		a := args[i]
		if !a.Literal {
			break // the script of -c, or what only run time tells
		}
		t := a.Text
		switch {
		case t == "--" || t == "-":
			i++
			break options
		case strings.HasPrefix(t, "--"):
			i++
			if t == "--rcfile" || t == "--init-file" {
				i++
			}
		case len(t) > 1 && (t[0] == '-' || t[0] == '+'):
			i++
			for _, l := range t[1:] {
				switch l {
				case 'c':
					hasC = true
				case 's':
					stdin = true
				case 'o', 'O':
					i++
				}
			}
		default:
			break options
		}
	}
	if i < len(args) && !args[i].Literal && !hasC {
		setComputed(cmd, "the arguments of "+p+" are computed at run time, so the script it runs is unknown")
		return
	}
	switch {
	case hasC:
		if i >= len(args) {
			return // -c without a script: bash refuses to start
		}
		if !args[i].Literal {
			setComputed(cmd, "the script of "+p+" -c is computed at run time")
			w.guess(args[i].Text, p+" -c", depth)
			return
		}
		w.sub(cmd, args[i].Text, p+" -c", cmd.Pipe, depth)
	case i < len(args) && !stdin:
		// A script file: its commands are not in the line.
	default:
		w.stdinScript(cmd, depth)
	}
}

// stdinScript reads the script a shell takes from its standard input
// when the line gives it: a here-document or a here-string. A pipe feeds
// it another command's output, which no reading of the line can know.
func (w *walker) stdinScript(cmd *Command, depth int) {
	var in *Redir
	for k := range cmd.Redirs {
		r := &cmd.Redirs[k]
		if (r.Fd == "" || r.Fd == "0") && strings.HasPrefix(r.Op, "<") && r.Op != "<&" {
			in = r
		}
	}
	switch {
	case in == nil && cmd.Pipe:
		setComputed(cmd, cmd.Program+" runs the output of another command as a script")
	case in == nil:
		// The call's own stdin: the caller (the policy) reads it.
		cmd.ScriptFromStdin = true
	case in.Op == "<<" || in.Op == "<<-":
		if !in.BodyLiteral {
			setComputed(cmd, "the script "+cmd.Program+" reads from a here-document is expanded at run time")
			return
		}
		w.sub(cmd, in.Body, "stdin of "+cmd.Program, false, depth)
	case in.Op == "<<<":
		if !in.Target.Literal {
			setComputed(cmd, "the script "+cmd.Program+" reads from a here-string is computed at run time")
			return
		}
		w.sub(cmd, in.Target.Text, "stdin of "+cmd.Program, false, depth)
	default:
		// < file or <> file: a script file, like bash file.
	}
}

// trap handles trap 'commands' SIGNALS: the commands run on the signal.
func (w *walker) trap(cmd *Command, args []Word, depth int) {
	for len(args) > 0 && (args[0].Text == "-p" || args[0].Text == "-l" || args[0].Text == "-P" || args[0].Text == "--") {
		args = args[1:]
	}
	if len(args) < 2 {
		return // trap alone or trap -p lists; trap SIG resets
	}
	if !args[0].Literal {
		setComputed(cmd, "the commands trap would run are computed at run time")
		return
	}
	if s := args[0].Text; s != "-" && s != "" {
		w.sub(cmd, s, "trap", false, depth)
	}
}

// gitCommandKeys are the git configuration keys whose value is a command
// git runs with the shell (the first dot-separated part, and the last for
// a.*.b keys); alias.* and credential.helper values run one when they
// start with '!'.
var gitCommandKeys = map[string]bool{
	"core.pager": true, "core.editor": true, "core.sshcommand": true, "core.fsmonitor": true,
	"core.askpass": true, "diff.external": true, "sequence.editor": true, "gpg.program": true,
	"uploadpack.packobjectshook": true, "pager": true, "filter.clean": true, "filter.smudge": true,
	"filter.process": true, "diff.command": true, "diff.textconv": true, "merge.driver": true,
	"mergetool.cmd": true, "difftool.cmd": true, "sendemail.sendmailcmd": true, "credential.helper": true,
	"alias": true,
}

// gitConfig reads git -c KEY=VALUE for the commands git would run: a
// value such as alias.x='!rm f' or core.pager='rm f' is a script.
func (w *walker) gitConfig(cmd *Command, args []Word, depth int) {
	for i := 0; i+1 < len(args) && strings.HasPrefix(args[i].Text, "-"); i++ {
		if args[i].Text != "-c" {
			continue
		}
		kv := args[i+1]
		i++
		key, value, ok := strings.Cut(kv.Text, "=")
		if !ok {
			continue
		}
		if !kv.Literal {
			setComputed(cmd, "git -c "+clip(kv.Text)+" sets a configuration only known at run time")
			continue
		}
		parts := strings.Split(strings.ToLower(key), ".")
		short := parts[0]
		if len(parts) > 1 {
			short = parts[0] + "." + parts[len(parts)-1]
		}
		bang := strings.HasPrefix(value, "!")
		switch {
		case parts[0] == "alias" || short == "credential.helper":
			if bang {
				w.sub(cmd, value[1:], "git -c "+parts[0], false, depth)
			}
		case gitCommandKeys[short] || gitCommandKeys[parts[0]]:
			w.sub(cmd, strings.TrimPrefix(value, "!"), "git -c "+short, false, depth)
		}
	}
}

// find handles -exec, -execdir, -ok and -okdir, which run a command on
// each file found, up to a `;` or `+` word.
func (w *walker) find(cmd *Command, args []Word, depth int) {
	for i := 0; i < len(args); i++ {
		flag := args[i].Text
		if flag != "-exec" && flag != "-execdir" && flag != "-ok" && flag != "-okdir" {
			continue
		}
		j := i + 1
		for j < len(args) && args[j].Text != ";" && args[j].Text != "+" {
			j++
		}
		words := args[i+1 : j]
		i = j
		if len(words) == 0 {
			continue
		}
		if strings.Contains(words[0].Text, "{}") {
			setComputed(cmd, "find "+flag+" runs the files it finds as programs")
			continue
		}
		inner := &Command{Text: strings.Join(texts(words), " "), Words: words, Via: "find " + flag, Redirs: cmd.Redirs}
		if w.deeper(depth + 1) {
			setComputed(cmd, "commands nested too deeply")
			return
		}
		w.finish(inner, depth+1)
	}
}

func texts(ws []Word) []string {
	out := make([]string, len(ws))
	for i, x := range ws {
		out[i] = x.Text
	}
	return out
}

// literalJoin joins words with spaces, as eval and watch do, when every
// one is literal.
func literalJoin(ws []Word) (string, bool) {
	for _, x := range ws {
		if !x.Literal {
			return "", false
		}
	}
	return strings.Join(texts(ws), " "), true
}

// isEnvAssign reports a NAME=value argument of env or sudo. env takes any
// name before the '=' (BASH_FUNC_f%%=… among them); a word starting with
// '=' or '-' is no assignment.
func isEnvAssign(t string) bool {
	i := strings.IndexByte(t, '=')
	return i > 0 && t[0] != '-'
}

func envAssign(t string) Assign {
	name, value, _ := strings.Cut(t, "=")
	return Assign{Name: name, Value: Word{Text: value, Literal: true}}
}
