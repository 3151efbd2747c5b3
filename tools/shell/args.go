package shell

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/moteur/moteur/tools"
)

const schema = `{
  "type": "object",
  "properties": {
    "command": {"type": "string", "minLength": 1, "description": "The command line, run with bash -c. Pipes, && and ; work as in a terminal."},
    "work_dir": {"type": "string", "description": "Directory to run in, relative to the project root (default: the root). Must stay inside the project."},
    "timeout_sec": {"type": "integer", "minimum": 1, "maximum": 600, "description": "Seconds before the command and everything it started are killed (default 120)."},
    "stdin": {"type": "string", "maxLength": 65536, "description": "Text given to the command's standard input (at most 64 KiB); without it, stdin is empty."},
    "max_output_bytes": {"type": "integer", "minimum": 1, "maximum": 65536, "description": "Bytes of stdout to keep (default 16384); beyond it the middle is dropped."},
    "max_stderr_bytes": {"type": "integer", "minimum": 1, "maximum": 16384, "description": "Bytes of stderr to keep (default 8192)."},
    "env": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Environment variables to add, e.g. {\"GOFLAGS\": \"-mod=mod\"}. Variables that change which code runs or which configuration is read (PATH, BASH_ENV, LD_*, GIT_*, PAGER, EDITOR, NODE_OPTIONS, PYTHONPATH…) are refused."}
  },
  "required": ["command"],
  "additionalProperties": false
}`

// args is a parsed call with its defaults applied.
type args struct {
	Command    string
	WorkDir    string
	TimeoutSec int
	Stdin      string
	MaxOutput  int
	MaxStderr  int
	Env        map[string]string
	SkillName  string
}

// rawArgs mirrors the schema; pointers tell an absent number from zero.
type rawArgs struct {
	Command    string            `json:"command"`
	WorkDir    string            `json:"work_dir"`
	TimeoutSec *int              `json:"timeout_sec"`
	Stdin      string            `json:"stdin"`
	MaxOutput  *int              `json:"max_output_bytes"`
	MaxStderr  *int              `json:"max_stderr_bytes"`
	Env        map[string]string `json:"env"`
	SkillName  string            `json:"skill_name"`
}

// parseArgs decodes and checks a call. The registry has validated the
// schema already; the bounds are checked again because Execute may be called
// directly, and because the schema counts stdin in characters, not bytes.
func parseArgs(raw json.RawMessage) (args, error) {
	var r rawArgs
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return args{}, fmt.Errorf("invalid arguments: %w", err)
	}
	if strings.TrimSpace(r.Command) == "" {
		return args{}, errors.New("command is empty")
	}
	if strings.IndexByte(r.Command, 0) >= 0 {
		return args{}, errors.New("command contains a NUL byte")
	}
	a := args{Command: r.Command, WorkDir: r.WorkDir, Stdin: r.Stdin, Env: r.Env, SkillName: r.SkillName}
	var err error
	if a.TimeoutSec, err = bounded("timeout_sec", r.TimeoutSec, defaultTimeoutSec, maxTimeoutSec); err != nil {
		return args{}, err
	}
	if a.MaxOutput, err = bounded("max_output_bytes", r.MaxOutput, defaultMaxOutput, maxMaxOutput); err != nil {
		return args{}, err
	}
	if a.MaxStderr, err = bounded("max_stderr_bytes", r.MaxStderr, defaultMaxStderr, maxMaxStderr); err != nil {
		return args{}, err
	}
	if len(a.Stdin) > maxStdinBytes {
		return args{}, fmt.Errorf("stdin is %d bytes, more than the %d allowed; write the data to a file in the project instead", len(a.Stdin), maxStdinBytes)
	}
	if err := checkEnv(a.Env); err != nil {
		return args{}, err
	}
	return a, nil
}

// controlList names the control paths for the model, directories with a
// trailing slash.
func controlList() string {
	var names []string
	for _, c := range tools.ControlPaths("") {
		n := c.Path
		switch {
		case c.Dir:
			n += "/"
		case n == ".git":
			// As a directory it is writable: commits work.
			n += " (when it is a file)"
		}
		names = append(names, n)
	}
	return strings.Join(names, ", ")
}

// bounded applies a default and refuses values out of [1, max]: clamping
// silently would give the model a different run than it asked for.
func bounded(name string, v *int, def, max int) (int, error) {
	if v == nil {
		return def, nil
	}
	if *v < 1 || *v > max {
		return 0, fmt.Errorf("%s is %d; it must be between 1 and %d", name, *v, max)
	}
	return *v, nil
}

// description tells the model how to use the tool and what the sandbox
// allows, so that it reads a failure to write or to connect for what it is.
func description(sb sandbox) string {
	var b strings.Builder
	b.WriteString(`Run a shell command (bash -c) in the project and get its exit code, stdout and stderr.

Use it to build, test, run scripts and inspect the project (git status, ls, grep…). Prefer the dedicated file tools to read or edit files when they exist.

How it runs:
- In the project root, or in work_dir (relative to the root, inside the project).
- Without a terminal: interactive programs and password prompts fail; pass input with stdin.
- timeout_sec defaults to 120 (max 600); at the deadline the command and every process it started are killed. Background processes (cmd &) are killed when the command ends: do not start servers or daemons.
- Output keeps the first and last bytes of stdout (max_output_bytes, default 16 KiB) and stderr (max_stderr_bytes, default 8 KiB); pipe through head, tail or grep to see what matters.
- The environment is minimal (PATH, HOME, LANG, TERM=dumb); add variables with env.
`)
	switch sb.kind {
	case kindBwrap:
		b.WriteString("- Sandbox: only the project directory is writable, /tmp is private and emptied after each call, the rest of the filesystem is read-only. There is no network: commands that download or connect fail unless the user grants network access to that call.\n")
		b.WriteString("- Files that make programs run or grant rights are read-only here, even in the project: " + controlList() + ". So `git config` cannot change the repository's configuration (pass settings for one command with `git -c key=value`), hooks cannot be written, and `git submodule` or `git worktree` commands that write under .git/modules or .git/worktrees fail. One that does not exist yet is not protected: if a command creates it, the result says so, for the user to review.\n")
		if iso := sb.iso; iso.UserNamespace {
			fmt.Fprintf(&b, "- Commands run as an unprivileged user (uid %d) with no capabilities: sudo, su, mount and chown fail.", iso.UID)
			if len(iso.Seccomp) > 0 {
				b.WriteString(" A seccomp filter also refuses mount, new namespaces (unshare, nested containers), ptrace (strace, gdb), perf, bpf, io_uring, kernel keyrings and modules, and setuid or setgid bits on files, with \"Operation not permitted\".")
			}
			b.WriteString("\n")
		}
	case kindUnavailable:
		b.WriteString("- The sandbox this tool requires is not installed: every command is refused until an administrator installs bubblewrap.\n")
	default:
		b.WriteString("- No sandbox: commands run with the user's rights and can change anything the user can. Be careful with destructive commands.\n")
	}
	return b.String()
}
