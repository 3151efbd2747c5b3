package shell

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/moteur/moteur/effect"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/moteur/moteur/tools"
)

// Name is the function name the model calls.
const Name = "shell_exec"

// Sandbox modes of Config.Sandbox.
const (
	SandboxAuto  = "auto"  // bwrap when installed and usable, else none
	SandboxBwrap = "bwrap" // bwrap or nothing: commands are refused without it
	SandboxNone  = "none"  // no sandbox
)

// Argument bounds.
const (
	defaultTimeoutSec = 120
	maxTimeoutSec     = 600
	maxStdinBytes     = 64 << 10
	defaultMaxOutput  = 16 << 10
	maxMaxOutput      = 64 << 10
	defaultMaxStderr  = 8 << 10
	maxMaxStderr      = 16 << 10
)

// shellExecToolTimeout is the registry's deadline for one call: a little
// above the 600 s command cap, so that the tool's own timeout, which kills
// the process group and still reports the output, always fires first.
const shellExecToolTimeout = 10*time.Minute + 5*time.Second

// defaultKillGrace is how long a process group has between SIGTERM and
// SIGKILL: enough to flush and remove temporary files, short enough not to
// hold the turn.
const defaultKillGrace = 2 * time.Second

// Config configures the shell tool.
type Config struct {
	// Root is the absolute project root: the default working directory and
	// the bound of work_dir; with bwrap, the only writable place.
	Root string
	// Sandbox is SandboxAuto (the default when empty), SandboxBwrap or
	// SandboxNone.
	Sandbox string
	// BwrapPath is the bwrap binary (default: looked up on PATH).
	BwrapPath string
	// Env is the base environment of every command, as "KEY=value" entries.
	// Empty selects a minimal one (PATH, HOME and LANG from Moteur's
	// environment, TERM=dumb); Moteur's whole environment is never passed
	// on, so that the secrets in it do not leak to commands.
	Env []string
	// Skills are the session's skills, whose scripts the skill_name
	// argument runs (nil: no skills, and no skill_name; see skill.go).
	Skills SkillResolver
}

// Exec is the shell_exec tool. It keeps no state between calls and is safe
// for concurrent use.
type Exec struct {
	root      string // resolved: no symbolic link in it
	rootAlias string // as configured, cleaned; accepted in work_dir too
	shell     string // absolute path of bash, or of sh without bash
	env       []string
	sandbox   sandbox
	grace     time.Duration
	desc      string
	schema    string
	skills    SkillResolver
}

// New returns the tool for cfg. It fails on a configuration that cannot
// work (no root, no shell, an unknown sandbox mode); a required bwrap that
// is missing does not fail here but makes every call an error result that
// says how to install it, so the session can still start and explain.
func New(cfg Config) (*Exec, error) {
	if cfg.Root == "" || !filepath.IsAbs(cfg.Root) {
		return nil, fmt.Errorf("shell: project root %q must be an absolute path", cfg.Root)
	}
	alias := filepath.Clean(cfg.Root)
	root, err := filepath.EvalSymlinks(alias)
	if err != nil {
		return nil, fmt.Errorf("shell: project root: %w", err)
	}
	if fi, err := os.Stat(root); err != nil {
		return nil, fmt.Errorf("shell: project root: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("shell: project root %s is not a directory", root)
	}
	if root == "/" {
		// Binding / writable would void the sandbox, and confining
		// work_dir to / confines nothing.
		return nil, errors.New("shell: the project root cannot be /")
	}
	sh, err := findShell()
	if err != nil {
		return nil, err
	}
	env, err := baseEnv(cfg.Env)
	if err != nil {
		return nil, err
	}
	sb, err := newSandbox(cfg.Sandbox, cfg.BwrapPath, root, sh)
	if err != nil {
		return nil, err
	}
	e := &Exec{root: root, rootAlias: alias, shell: sh, env: env, sandbox: sb, grace: defaultKillGrace, schema: schema, skills: cfg.Skills}
	e.desc = description(sb)
	if cfg.Skills != nil {
		e.schema = withSkills(schema)
		e.desc += "- skill_name runs the command in that skill's directory with $" + SkillEnv + " set to it (read its skill://NAME/SKILL.md first); the skill's files are read-only.\n"
	}
	return e, nil
}

// findShell prefers bash, whose syntax models write, and falls back to sh.
func findShell() (string, error) {
	for _, name := range []string{"bash", "sh"} {
		if p, err := exec.LookPath(name); err == nil {
			if abs, err := filepath.Abs(p); err == nil {
				return abs, nil
			}
		}
	}
	return "", errors.New("shell: neither bash nor sh found on PATH")
}

// Sandboxed reports whether commands run inside bwrap.
func (e *Exec) Sandboxed() bool { return e.sandbox.kind == kindBwrap }

// Describe returns the sandbox's kind ("bwrap", "none", or "unavailable"
// when bwrap is required but cannot run, and every command is refused) and
// a one-line account of what it guarantees, for SessionStarted.
func (e *Exec) Describe() (kind string, detail string) { return e.sandbox.kind, e.sandbox.detail }

// Isolation returns what the bubblewrap sandbox enforces, as its trial run
// at New found it inside; the zero Isolation when commands do not run in
// it.
func (e *Exec) Isolation() Isolation {
	iso := e.sandbox.iso
	iso.Seccomp = slices.Clone(iso.Seccomp)
	iso.ReadOnly = slices.Clone(iso.ReadOnly)
	return iso
}

// Sandbox implements tools.Isolated: Describe and Isolation together, as
// SessionStarted records them. Network stays false: commands get the
// network only call by call (GrantsNetwork).
func (e *Exec) Sandbox() effect.Sandbox {
	iso := e.Isolation()
	return effect.Sandbox{
		Kind: e.sandbox.kind, Detail: e.sandbox.detail,
		UserNamespace: iso.UserNamespace, UID: iso.UID, Capabilities: iso.Capabilities,
		NoNewPrivs: iso.NoNewPrivs, Seccomp: iso.Seccomp, ReadOnly: iso.ReadOnly,
	}
}

// GrantsNetwork implements tools.NetworkGranter: inside bwrap a command has
// no network unless its call was granted it (tools.WithNetwork), so an
// approval can offer the network for that one call. Without the sandbox
// commands have the user's network already, and with a required sandbox
// that is missing nothing runs: there is nothing to grant.
func (e *Exec) GrantsNetwork() bool { return e.Sandboxed() }

// Name implements tools.Tool.
func (*Exec) Name() string { return Name }

// Description implements tools.Tool.
func (e *Exec) Description() string { return e.desc }

// Schema implements tools.Tool.
func (e *Exec) Schema() json.RawMessage { return json.RawMessage(e.schema) }

// Risk implements tools.Tool: the class of a call whose command is not
// known; RiskOf refines it per call.
func (*Exec) Risk() effect.Risk { return effect.RiskWrite }

// Concurrent implements tools.Tool: commands may touch the same files as
// each other and as the file tools, so they run alone.
func (*Exec) Concurrent() bool { return false }

// Timeout implements tools.TimeoutOverrider.
func (*Exec) Timeout() time.Duration { return shellExecToolTimeout }

// RiskOf, MustConfirm and Summary are in policy.go.

// Execute implements tools.Tool. Mistakes in the call (a work_dir outside
// the project, a bad env name) and a required sandbox that is missing come
// back as error results that run nothing; a command that fails is an error
// result with its exit code and output.
func (e *Exec) Execute(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	a, err := parseArgs(raw)
	if err != nil {
		return refuse(err), nil
	}
	if e.sandbox.refusal != "" {
		return tools.Result{Content: e.sandbox.refusal, IsError: true}, nil
	}
	wd, skillDir, err := e.callDir(a)
	if err != nil {
		return refuse(err), nil
	}
	r := read(a)
	if !e.Sandboxed() {
		if err := e.checkRedirects(r, wd); err != nil {
			return refuse(err), nil
		}
	}
	if err := context.Cause(ctx); err != nil {
		// A turn already over starts nothing.
		return tools.Result{}, fmt.Errorf("shell_exec: not started: %w", err)
	}
	network := tools.NetworkGranted(ctx)
	// The control paths are listed anew for every command: the project
	// may have gained a .git or a .mcp.json since the last one.
	controls := tools.ControlPaths(e.root)
	before := snapshotControl(e.root, controls)
	var prot protection
	if e.Sandboxed() {
		prot = e.protectSkills(protect(e.root, controls), skillDir)
	}
	env := mergeEnv(e.env, a.Env)
	if skillDir != "" {
		// After the call's variables: the skill's directory is not the
		// model's to choose.
		env = append(env, SkillEnv+"="+skillDir)
	}
	inv, err := e.sandbox.invocation(e.root, wd, network, e.shell, a.Command, prot)
	if err != nil {
		return tools.Result{}, fmt.Errorf("shell_exec: %w", err)
	}
	defer inv.close()
	o, err := run(ctx, job{
		path:    inv.path,
		args:    inv.argv,
		extra:   inv.extra,
		dir:     wd,
		env:     e.sandbox.environ(env),
		stdin:   a.Stdin,
		timeout: time.Duration(a.TimeoutSec) * time.Second,
		maxOut:  a.MaxOutput,
		maxErr:  a.MaxStderr,
		grace:   e.grace,
	})
	if err != nil {
		return tools.Result{}, fmt.Errorf("shell_exec: %w", err)
	}
	res := o.result()
	// The command may have created a .git file naming a new git
	// directory: its control paths are looked at too.
	after := snapshotControl(e.root, append(controls, tools.ControlPaths(e.root)...))
	if note := controlNote(controlChanges(before, after), e.Sandboxed()); note != "" {
		// First, so that no truncation of the output can drop it.
		res.Content = note + "\n" + res.Content
	}
	res.NotUndoable = e.risk(a, wd, r) != effect.RiskProbe
	return res, nil
}

// refuse is the error result of a call that ran nothing.
func refuse(err error) tools.Result {
	return tools.Result{Content: "shell_exec: " + err.Error(), IsError: true}
}
