package shellcmd

import (
	"slices"
	"strings"
)

// Class is a command's risk class.
type Class int

// Risk classes, from harmless to irreversible. They map onto the tool risk
// classes probe, write and destructive.
const (
	// Probe only reads: every command is a read-only program (see
	// readOnlyPrograms) with arguments that cannot make it write, and
	// nothing is written through a redirection.
	Probe Class = iota
	// Write may change files or state.
	Write
	// Destructive may destroy data for good: deleting files (rm, unlink,
	// shred, find -delete), overwriting them (dd, truncate, a > over an
	// existing file), discarding work in git (reset --hard, clean -f,
	// push --force, checkout -- ., restore, stash drop, branch -D),
	// recursive permission changes, file systems (mkfs, wipefs, fdisk).
	Destructive
)

func (c Class) String() string {
	switch c {
	case Probe:
		return "probe"
	case Write:
		return "write"
	}
	return "destructive"
}

// Exists tells whether a redirection's target (as written: relative paths
// are relative to where the command runs) is an existing file. It must
// return true when it cannot tell: a > over it might destroy its content.
type Exists func(target string) bool

// Class returns the highest class of the line's commands; a line that did
// not parse is at least a write. A nil exists counts every target as
// existing.
func (l *Line) Class(exists Exists) Class {
	class := Probe
	if l.err != nil {
		class = Write
	}
	for _, c := range l.Commands {
		class = max(class, c.Class(exists))
	}
	return class
}

// Class returns the command's own class; the commands it reaches are
// classed on their own (a wrapper is at least a write).
func (c *Command) Class(exists Exists) Class {
	class := Probe
	if c.Computed != "" {
		class = Write
	}
	for _, r := range c.Redirs {
		switch {
		case r.Network():
			class = max(class, Write)
		case r.Writes():
			if r.Truncates && (!r.Target.Literal || exists == nil || exists(r.Target.Text)) {
				class = Destructive
			} else {
				class = max(class, Write)
			}
		}
	}
	if c.Noop {
		return class
	}
	for _, a := range c.Assigns {
		if EnvOf(a.Name, a.Value.Text) != EnvSafe {
			class = max(class, Write)
		}
	}
	if len(c.Words) == 0 {
		return class
	}
	if c.Program == "" {
		return max(class, Write)
	}
	if destructive(c.Program, c.Args()) {
		return Destructive
	}
	if c.Computed != "" || !readOnly(c) {
		class = max(class, Write)
	}
	return class
}

// destructive reports the programs and arguments that destroy data.
func destructive(prog string, args []string) bool {
	switch prog {
	case "rm", "unlink", "shred", "truncate", "dd", "wipefs", "fdisk", "sfdisk", "cfdisk", "parted",
		"blkdiscard", "mkswap", "mke2fs":
		// Every rm: a deletion by a shell command has no checkpoint,
		// so no rewind brings the file back.
		return true
	case "chmod", "chown", "chgrp":
		return hasShortOption(args, 'R') || hasLongOption(args, "recursive")
	case "find":
		return slices.Contains(args, "-delete")
	case "rsync":
		return slices.ContainsFunc(args, func(a string) bool {
			return strings.HasPrefix(a, "--delete") || strings.HasPrefix(a, "--remove-source-files")
		})
	case "git":
		return gitDestructive(args)
	case "docker", "podman":
		return slices.ContainsFunc(args, func(a string) bool { return a == "rm" || a == "rmi" || a == "prune" })
	case "kubectl":
		return slices.Contains(args, "delete")
	case "crontab":
		return hasShortOption(args, 'r')
	}
	return strings.HasPrefix(prog, "mkfs")
}

// gitSub splits git's arguments into the subcommand and its arguments,
// past the global options.
func gitSub(args []string) (sub string, rest []string, globals []string) {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		switch args[i] {
		case "-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env":
			i += 2
		default:
			i++
		}
	}
	if i >= len(args) {
		return "", nil, args
	}
	return args[i], args[i+1:], args[:i]
}

func gitDestructive(args []string) bool {
	sub, rest, _ := gitSub(args)
	has := func(s ...string) bool {
		return slices.ContainsFunc(rest, func(a string) bool { return slices.Contains(s, a) })
	}
	switch sub {
	case "reset":
		return has("--hard")
	case "clean":
		return hasShortOption(rest, 'f') || hasLongOption(rest, "force")
	case "push":
		return hasShortOption(rest, 'f') || hasShortOption(rest, 'd') ||
			slices.ContainsFunc(rest, func(a string) bool {
				return strings.HasPrefix(a, "--force") || a == "--mirror" || a == "--delete" || a == "--prune" ||
					!strings.HasPrefix(a, "-") && (strings.HasPrefix(a, "+") || strings.HasPrefix(a, ":"))
			})
	case "checkout":
		return has("--", ".", "--ours", "--theirs") || hasShortOption(rest, 'f') || hasLongOption(rest, "force")
	case "restore":
		staged := has("--staged", "-S")
		worktree := has("--worktree", "-W")
		return !staged || worktree
	case "switch":
		return has("--discard-changes") || hasShortOption(rest, 'f') || hasLongOption(rest, "force")
	case "stash":
		return len(rest) > 0 && (rest[0] == "drop" || rest[0] == "clear")
	case "branch":
		return hasShortOption(rest, 'D') ||
			(has("-d", "--delete") && (hasShortOption(rest, 'f') || has("--force")))
	case "rm":
		return hasShortOption(rest, 'f') || has("--force")
	case "reflog":
		return len(rest) > 0 && (rest[0] == "expire" || rest[0] == "delete")
	case "gc":
		return slices.ContainsFunc(rest, func(a string) bool { return strings.HasPrefix(a, "--prune") })
	case "filter-branch", "filter-repo":
		return true
	case "update-ref", "tag":
		return has("-d", "--delete")
	}
	return false
}

// readOnlyPrograms are the programs whose simple commands may be probes;
// the value checks their arguments (nil: any arguments).
//
//	git status|log|diff|show|branch|rev-parse|ls-files|blame
//	ls cat head tail wc pwd echo grep rg find stat file which env date
//	uname tree du df cd true false : test [
//
// Those that can also write or run other programs have their arguments
// checked: git takes only --no-pager or -C before the subcommand, no
// --output (nor an abbreviation of it), and branch only lists; find has no
// -delete, -exec, -execdir, -ok, -okdir, -fls, -fprint, -fprint0 or
// -fprintf; rg no --pre or --hostname-bin; date no -s/--set; tree no -o or
// -R; file no -C/--compile; env no argument at all. For these programs an
// argument with an unquoted glob or brace, or any expansion, is refused
// too: a file named "-delete" matched by * would become an option.
//
// cd is there because it changes only the shell's own directory, and
// "cd sub && git status" is how models look around.
//
// Out of reach of any such check: a repository's own configuration can make
// git run programs (core.fsmonitor, diff.external, textconv), and a
// read-only command still reads anything the user can.
var readOnlyPrograms = map[string]func(args []Word) bool{
	"ls": nil, "cat": nil, "head": nil, "tail": nil, "wc": nil, "pwd": nil,
	"echo": nil, "grep": nil, "stat": nil, "which": nil, "uname": nil,
	"du": nil, "df": nil, "cd": nil, "true": nil, "false": nil, ":": nil,
	"test": nil, "[": nil,
	"git":  checked(gitReadOnly),
	"find": checked(findReadOnly),
	"rg":   checked(rgReadOnly),
	"date": checked(dateReadOnly),
	"tree": checked(treeReadOnly),
	"file": checked(fileReadOnly),
	"env":  func(args []Word) bool { return len(args) == 0 },
}

// readOnly reports whether one simple command only reads: its program is
// read-only, written as a plain name (a path may be another program), with
// arguments its check accepts.
func readOnly(c *Command) bool {
	if c.Via != "" || strings.Contains(c.Words[0].Text, "/") {
		return false
	}
	check, ok := readOnlyPrograms[c.Program]
	if !ok {
		return false
	}
	return check == nil || check(c.Words[1:])
}

// checked wraps the argument check of a program with write options: an
// argument that expands could become such an option (a file named
// "-delete" matched by *), so it is refused before the check runs.
func checked(f func(args []string) bool) func([]Word) bool {
	return func(args []Word) bool {
		texts := make([]string, len(args))
		for i, a := range args {
			if !a.Literal {
				return false
			}
			texts[i] = a.Text
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

func gitReadOnly(args []string) bool {
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
	listing := slices.Contains(rest, "-l") || slices.Contains(rest, "--list")
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
}

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
