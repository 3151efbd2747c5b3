package shellcmd

import "strings"

// inputRunners are programs that may run what they read on their standard
// input — as a script (shells, interpreters, debuggers, editors with a
// shell escape, SQL clients with \! or .shell), as commands (xargs,
// parallel, at, crontab) or on another machine (ssh, docker, kubectl).
var inputRunners = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true,
	"yash": true, "posh": true, "rbash": true, "fish": true, "csh": true, "tcsh": true, "busybox": true,
	"python": true, "pypy": true, "perl": true, "ruby": true, "irb": true, "node": true, "nodejs": true,
	"deno": true, "bun": true, "php": true, "lua": true, "luajit": true, "tclsh": true, "wish": true,
	"expect": true, "rscript": true, "r": true, "julia": true, "osascript": true, "awk": true,
	"gawk": true, "mawk": true, "nawk": true, "m4": true, "make": true, "gmake": true, "gdb": true,
	"lldb": true, "ed": true, "ex": true, "vi": true, "vim": true, "nvim": true, "emacs": true,
	"sqlite3": true, "psql": true, "mysql": true, "mariadb": true, "dc": true, "jshell": true,
	"ghci": true, "scala": true, "sbcl": true, "guile": true, "racket": true, "ocaml": true, "erl": true,
	"iex": true, "elixir": true, "groovy": true, "xargs": true, "parallel": true, "at": true,
	"batch": true, "crontab": true, "ssh": true, "docker": true, "podman": true, "kubectl": true,
	"sudo": true, "su": true, "doas": true, "script": true, "eval": true, "source": true, ".": true,
	"env": true, "exec": true, "command": true, "builtin": true, "nohup": true, "nice": true,
	"timeout": true, "stdbuf": true, "time": true, "setsid": true, "flock": true, "watch": true,
}

// ExecutesInput reports whether the command may run the call's standard
// input as code: its program is one of inputRunners (python3.12 and the
// like by their family name), its program is computed, or an argument
// names standard input as a file (-, /dev/stdin, /dev/fd/0,
// /proc/self/fd/0). Any other program is taken to read its input as data.
// A command fed by a pipe or a redirection does not read the call's stdin.
func (c *Command) ExecutesInput() bool {
	if c.Pipe || c.stdinRedirected() {
		return false
	}
	if c.Program == "" {
		return len(c.Words) > 0
	}
	if inputRunners[family(c.Program)] {
		return true
	}
	for i, w := range c.Words {
		if i > 0 && namesStdin(w.Text) {
			return true
		}
	}
	return false
}

// stdinRedirected reports an input redirection of fd 0.
func (c *Command) stdinRedirected() bool {
	for _, r := range c.Redirs {
		if (r.Fd == "" || r.Fd == "0") && strings.HasPrefix(r.Op, "<") {
			return true
		}
	}
	return false
}

// family strips a version suffix and lower-cases: python3.12 → python,
// perl5.36 → perl, Rscript → rscript.
func family(p string) string {
	f := strings.ToLower(strings.TrimRight(p, "0123456789.-"))
	if f == "" {
		return strings.ToLower(p)
	}
	return f
}

// namesStdin reports an argument that makes a program read its standard
// input as a file: -, /dev/stdin, /dev/fd/0, /proc/*/fd/0, possibly as
// an option's value (--file=-, -f-, --file=/dev/stdin).
func namesStdin(a string) bool {
	if a == "-" || strings.HasSuffix(a, "=-") || len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.HasSuffix(a, "-") {
		return true
	}
	for _, p := range []string{"/dev/stdin", "/dev/fd/0"} {
		if strings.Contains(a, p) {
			return true
		}
	}
	return strings.Contains(a, "/proc/") && strings.Contains(a, "/fd/0")
}
