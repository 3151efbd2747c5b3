package shell

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/moteur/moteur/tools"
)

// Sandbox kinds, as Describe reports them.
const (
	kindBwrap       = "bwrap"
	kindNone        = "none"
	kindUnavailable = "unavailable" // bwrap required but unusable: nothing runs
)

// SandboxUID is the uid and gid commands have inside the sandbox when
// Moteur runs as root: nobody's, so that nothing inside is root even by
// name. Outside, the kernel still sees root's uid (an unprivileged user
// namespace can map only its creator's), which is why the sandbox drops
// every capability and filters system calls. For any other user, commands
// keep the user's own uid.
const SandboxUID = 65534

// installHint ends every message about a missing bwrap.
const installHint = "install bubblewrap (Debian, Ubuntu: `apt-get install bubblewrap`; Fedora: `dnf install bubblewrap`)"

// brokenHint ends every message about a bwrap that is installed but fails.
const brokenHint = "let bubblewrap create namespaces here (it needs user namespaces, for root too: sysctl user.max_user_namespaces above 0, kernel.unprivileged_userns_clone=1 where it exists, or on Ubuntu 24.04 and later an AppArmor profile for bwrap)"

// noFilterHint ends the message of a required sandbox whose seccomp filter
// cannot be applied.
const noFilterHint = "run Moteur on a kernel with seccomp filters (CONFIG_SECCOMP_FILTER) and an architecture the filter supports (amd64, arm64, 386, arm), or set the sandbox to \"auto\" to accept bubblewrap without the filter"

// probeTimeout bounds the trial run of bwrap at New.
const probeTimeout = 10 * time.Second

// seccompFD is the descriptor bwrap reads the filter from: the first of
// exec.Cmd.ExtraFiles.
const seccompFD = 3

// Isolation is what the bubblewrap sandbox enforces, as read inside it by
// the trial run at New (/proc/self/status and uid_map), not as asked for.
// Its zero value describes no sandbox.
type Isolation struct {
	// UserNamespace: commands run in a user namespace of their own.
	UserNamespace bool
	// UID is the commands' uid inside the sandbox (SandboxUID when Moteur
	// runs as root).
	UID int
	// Capabilities is "none" when the effective, permitted, bounding,
	// inheritable and ambient sets are all empty, else the sets that are
	// not ("CapEff=…").
	Capabilities string
	// NoNewPrivs: no program can gain privileges at exec (setuid bits and
	// file capabilities are ignored).
	NoNewPrivs bool
	// Seccomp lists the groups of system calls the filter refuses (see
	// filterGroups); nil when no filter is in force.
	Seccomp []string
	// ReadOnly lists the project's control paths that existed at New and
	// are mounted read-only, relative to the root. Each command binds
	// those that exist when it starts.
	ReadOnly []string
}

// sandbox is how commands are wrapped, decided once at New.
type sandbox struct {
	kind     string
	bwrap    string   // absolute path of bwrap when kind is kindBwrap
	runFiles []string // files of /run shown again, read-only
	nobody   bool     // commands run as SandboxUID inside (Moteur is root)
	filter   *filter  // the seccomp program, nil without one
	iso      Isolation
	detail   string // for Describe
	refusal  string // the error result of every call when kind is kindUnavailable
}

// compiledFilter builds the filter once per process: it depends only on
// the architecture.
var compiledFilter = sync.OnceValues(buildFilter)

// newSandbox settles the mode. bwrap is not only looked up but tried once
// with the very arguments commands will get: it is often installed where it
// cannot work (user namespaces disabled, a container without the rights to
// mount /proc, a kernel without seccomp filters), and finding out at every
// command would turn each into the same obscure error.
//
// Mode "bwrap" takes the whole sandbox or nothing: if the filter cannot be
// applied, or the trial run finds a guarantee missing, every command is
// refused. Mode "auto" takes the best bubblewrap gives here and says what is
// missing in the description.
func newSandbox(mode, bwrapPath, root, shell string) (sandbox, error) {
	switch mode {
	case "", SandboxAuto, SandboxBwrap:
	case SandboxNone:
		return sandbox{kind: kindNone, detail: "no sandbox: commands run with the user's rights; only the environment is reduced"}, nil
	default:
		return sandbox{}, fmt.Errorf("shell: unknown sandbox mode %q (want %s, %s or %s)", mode, SandboxAuto, SandboxBwrap, SandboxNone)
	}
	required := mode == SandboxBwrap

	name := bwrapPath
	if name == "" {
		name = "bwrap"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		why := fmt.Sprintf("bubblewrap (bwrap) not found (%v)", err)
		if required {
			return unavailable(why, installHint), nil
		}
		return sandbox{kind: kindNone, detail: why + ": commands run unsandboxed; " + installHint + " to confine them"}, nil
	}
	sb := sandbox{kind: kindBwrap, bwrap: path, runFiles: resolverFiles(), nobody: os.Geteuid() == 0}
	prot := protect(root, tools.ControlPaths(root))

	var noFilter string // why the sandbox runs without the filter
	f, ferr := compiledFilter()
	if ferr == nil {
		sb.filter = &f
	} else {
		noFilter = ferr.Error()
	}
	iso, err := sb.probeOnce(root, shell, prot)
	if err != nil && sb.filter != nil {
		// Is it the filter? Try once without it, to say which.
		bare := sb
		bare.filter = nil
		if bareIso, bareErr := bare.probeOnce(root, shell, prot); bareErr == nil {
			noFilter = fmt.Sprintf("bubblewrap cannot apply the seccomp filter here (%v)", err)
			sb, iso, err = bare, bareIso, nil
		}
	}
	if err != nil {
		why := fmt.Sprintf("bubblewrap at %s cannot create its sandbox here (%v)", path, err)
		if required {
			return unavailable(why, brokenHint), nil
		}
		return sandbox{kind: kindNone, detail: why + ": commands run unsandboxed"}, nil
	}
	iso.ReadOnly = prot.readOnlyRel
	missing := iso.missing(sb.filter != nil)
	if noFilter != "" {
		missing = append(missing, "no seccomp filter: "+noFilter)
	}
	if len(missing) > 0 && required {
		why := "the bubblewrap sandbox is incomplete here: " + strings.Join(missing, "; ")
		fix := brokenHint
		if noFilter != "" && len(missing) == 1 {
			fix = noFilterHint
		}
		return unavailable(why, fix), nil
	}
	sb.iso = iso
	sb.detail = bwrapDetail(iso, missing)
	return sb, nil
}

// unavailable is the sandbox of a configuration that requires bwrap where
// it cannot run: every call is refused with why and how to fix it.
func unavailable(why, fix string) sandbox {
	return sandbox{
		kind:    kindUnavailable,
		detail:  why + "; the configuration requires it, so every command is refused until you " + fix,
		refusal: "shell_exec is refused: the configuration requires the bubblewrap sandbox, but " + why + ". Nothing was run. To enable the tool, " + fix + ", or set the sandbox to \"none\" to run commands unsandboxed.",
	}
}

// bwrapDetail is what the bwrap sandbox guarantees, in one line, and what
// it lacks.
func bwrapDetail(iso Isolation, missing []string) string {
	var b strings.Builder
	b.WriteString("project root writable except its control files")
	if len(iso.ReadOnly) > 0 {
		fmt.Fprintf(&b, " (read-only: %s)", strings.Join(iso.ReadOnly, ", "))
	}
	b.WriteString(", rest of the filesystem read-only, private /tmp and /run, own pid namespace, no network unless granted per call")
	if iso.UserNamespace {
		fmt.Fprintf(&b, ", user namespace with uid %d inside", iso.UID)
	}
	if iso.Capabilities == "none" {
		b.WriteString(", no capabilities")
	}
	if iso.NoNewPrivs {
		b.WriteString(", no new privileges")
	}
	if len(iso.Seccomp) > 0 {
		fmt.Fprintf(&b, ", seccomp filter refusing %s", strings.Join(iso.Seccomp, ", "))
	}
	if len(missing) > 0 {
		fmt.Fprintf(&b, "; weaker than it should be: %s", strings.Join(missing, "; "))
	}
	return b.String()
}

// probeScript prints the sandbox's view of itself with shell builtins
// only, so that it needs nothing from the filesystem but the shell.
const probeScript = `while IFS= read -r l; do printf '%s\n' "$l"; done </proc/self/status; read -r a b c </proc/self/uid_map; printf 'UidMap:\t%s %s %s\n' "$a" "$b" "$c"`

// probe runs probeScript in the sandbox, with the arguments every command
// gets, and reads what isolation it found there.
func (s sandbox) probe(root, shell string, prot protection) (Isolation, error) {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	inv, err := s.invocation(root, root, false, shell, probeScript, prot)
	if err != nil {
		return Isolation{}, err
	}
	defer inv.close()
	cmd := exec.CommandContext(ctx, inv.path, inv.argv[1:]...)
	cmd.Env = []string{"PATH=" + fallbackPath}
	cmd.ExtraFiles = inv.extra
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(string(bytes.ToValidUTF8(stderr.Bytes(), nil))); msg != "" {
			return Isolation{}, fmt.Errorf("%w: %s", err, msg)
		}
		return Isolation{}, err
	}
	return s.readStatus(string(out))
}

// readStatus reads probeScript's output.
func (s sandbox) readStatus(out string) (Isolation, error) {
	status := map[string]string{}
	for line := range strings.Lines(out) {
		if k, v, ok := strings.Cut(line, ":"); ok {
			status[k] = strings.TrimSpace(v)
		}
	}
	uids := strings.Fields(status["Uid"])
	umap := strings.Fields(status["UidMap"])
	if len(uids) == 0 || len(umap) != 3 {
		return Isolation{}, fmt.Errorf("the trial run printed no uid and uid map: %q", out)
	}
	uid, err := strconv.Atoi(uids[0])
	if err != nil {
		return Isolation{}, fmt.Errorf("the trial run printed uid %q: %w", uids[0], err)
	}
	var iso Isolation
	iso.UID = uid
	// The initial user namespace maps every uid to itself.
	iso.UserNamespace = !(umap[0] == "0" && umap[1] == "0" && umap[2] == "4294967295")
	var held []string
	for _, set := range []string{"CapEff", "CapPrm", "CapBnd", "CapInh", "CapAmb"} {
		v, ok := status[set]
		if n, err := strconv.ParseUint(v, 16, 64); !ok || err != nil || n != 0 {
			held = append(held, set+"="+v)
		}
	}
	iso.Capabilities = "none"
	if len(held) > 0 {
		iso.Capabilities = strings.Join(held, " ")
	}
	iso.NoNewPrivs = status["NoNewPrivs"] == "1"
	// Seccomp 2 is filter mode; bwrap applies only ours.
	if s.filter != nil && status["Seccomp"] == "2" {
		iso.Seccomp = slices.Clone(s.filter.groups)
	}
	return iso, nil
}

// missing lists the guarantees the trial run did not find.
func (iso Isolation) missing(filtered bool) []string {
	var m []string
	if !iso.UserNamespace {
		m = append(m, "no user namespace")
	}
	if iso.UID == 0 {
		m = append(m, "commands are root inside")
	}
	if iso.Capabilities != "none" {
		m = append(m, "capabilities kept ("+iso.Capabilities+")")
	}
	if !iso.NoNewPrivs {
		m = append(m, "no_new_privs not set")
	}
	if filtered && len(iso.Seccomp) == 0 {
		m = append(m, "the seccomp filter is not in force")
	}
	return m
}

// invocation is one run of a command: program, argv and the files the
// child gets as descriptors 3 onward.
type invocation struct {
	path  string
	argv  []string
	extra []*os.File
}

// close releases the parent's copies of the child's files.
func (inv invocation) close() {
	for _, f := range inv.extra {
		_ = f.Close()
	}
}

// invocation returns how to run script in wd: the shell itself, or the
// shell inside bwrap with prot's control paths read-only.
func (s sandbox) invocation(root, wd string, network bool, shell, script string, prot protection) (invocation, error) {
	if s.kind != kindBwrap {
		return invocation{path: shell, argv: []string{shell, "-c", script}}, nil
	}
	inv := invocation{path: s.bwrap, argv: s.args(root, wd, network, shell, script, prot)}
	if s.filter != nil {
		f, err := s.filter.file()
		if err != nil {
			return invocation{}, err
		}
		inv.extra = []*os.File{f}
	}
	return inv, nil
}

// args is bwrap's argv.
func (s sandbox) args(root, wd string, network bool, shell, script string, prot protection) []string {
	// Order matters: later mounts cover earlier ones, so the project is
	// bound after /tmp and /run — a root under either must not vanish
	// under their tmpfs — and its control paths after the project.
	argv := []string{s.bwrap,
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
		// bwrap means to cover /proc/sys read-only but skips it when the
		// directory itself is not writable, while its files are, to their
		// owner: to root's uid outside, which is the sandbox's when
		// Moteur runs as root, and kernel.core_pattern names a program
		// the kernel runs as root. (-try: without sysctls there is
		// nothing to cover.)
		"--ro-bind-try", "/proc/sys", "/proc/sys",
		"--tmpfs", "/tmp",
		// The host's /run holds daemon sockets (the D-Bus session bus,
		// Docker's) that a read-only mount does not protect: connecting
		// to a socket needs no write access to the filesystem. Only the
		// resolver's files come back, for DNS when the network is granted.
		"--tmpfs", "/run",
	}
	for _, d := range s.runFiles {
		argv = append(argv, "--ro-bind-try", d, d)
	}
	argv = append(argv, "--bind", root, root)
	// Directories above a control path are bound onto themselves: a mount
	// point cannot be renamed or removed, so `mv .git .git-old && git init`
	// cannot swap the protected git directory for a new one.
	for _, d := range prot.pins {
		argv = append(argv, "--bind", d, d)
	}
	for _, p := range prot.readOnly {
		argv = append(argv, "--ro-bind", p, p)
	}
	argv = append(argv,
		// Every namespace bwrap can create: pid (so killing bwrap's init
		// kills all that runs inside), net, ipc, uts, cgroup, user. The
		// user namespace is required, not tried: without it root would
		// stay root.
		"--unshare-all",
		"--unshare-user",
	)
	if s.nobody {
		argv = append(argv, "--uid", strconv.Itoa(SandboxUID), "--gid", strconv.Itoa(SandboxUID))
	}
	// As root bwrap keeps every capability inside unless told; for
	// anyone else it drops them already, and this says so again.
	argv = append(argv, "--cap-drop", "ALL")
	if s.filter != nil {
		argv = append(argv, "--seccomp", strconv.Itoa(seccompFD))
	}
	if network {
		argv = append(argv, "--share-net")
	}
	argv = append(argv,
		// Sandbox dies with Moteur, and each inner process with bwrap.
		"--die-with-parent",
		// A new session inside: no ioctl(TIOCSTI) into a terminal, even
		// one inherited some other way. Job control is lost; commands
		// here never had a terminal anyway.
		"--new-session",
		"--chdir", wd,
		"--", shell, "-c", script)
	return argv
}

// protection is what one command's sandbox binds over the project.
type protection struct {
	pins        []string // directories bound onto themselves, parents first
	readOnly    []string // absolute real paths bound read-only
	readOnlyRel []string // readOnly relative to the root, for Isolation
}

// protect finds the control paths of the project that exist now and how to
// protect them. A symbolic link is followed to a target inside the project,
// which is protected; the link itself cannot be (a mount covers what it
// points to), so replacing it is left to the check after each command.
// Targets outside the project are read-only already.
func protect(root string, paths []tools.ControlPath) protection {
	var ro, pins []string
	for _, c := range paths {
		abs := filepath.Join(root, filepath.FromSlash(c.Path))
		if _, err := os.Lstat(abs); err != nil {
			continue // absent (or unreachable): nothing to bind
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			continue // a dangling link: nothing behind it to protect
		}
		if _, ok := insideRoot(root, real); !ok {
			continue
		}
		fi, err := os.Stat(real)
		if err != nil {
			continue
		}
		if fi.IsDir() && !c.Dir {
			// .git as a directory: its files are listed one by one;
			// the directory is only pinned.
			pins = append(pins, real)
		} else {
			ro = append(ro, real)
		}
		for d := filepath.Dir(real); d != root && len(d) > len(root); d = filepath.Dir(d) {
			pins = append(pins, d)
		}
	}
	slices.Sort(ro)
	ro = slices.Compact(ro)
	// A path under another read-only one is covered already, and a pin
	// under one would make it writable again.
	covered := func(p string) bool {
		for _, r := range ro {
			if p != r && within(r, p) {
				return true
			}
		}
		return false
	}
	ro = slices.DeleteFunc(ro, covered)
	pins = slices.DeleteFunc(pins, func(p string) bool { return covered(p) || slices.Contains(ro, p) })
	slices.SortFunc(pins, func(a, b string) int {
		if c := strings.Count(a, string(filepath.Separator)) - strings.Count(b, string(filepath.Separator)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	pins = slices.Compact(pins)
	p := protection{pins: pins, readOnly: ro}
	for _, r := range ro {
		rel, _ := insideRoot(root, r)
		p.readOnlyRel = append(p.readOnlyRel, rel)
	}
	return p
}

// insideRoot returns p relative to root, slash-separated, when p lies
// strictly inside root.
func insideRoot(root, p string) (string, bool) {
	if p == root || !within(root, p) {
		return "", false
	}
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// resolverFiles returns the file under /run that /etc/resolv.conf leads to
// (systemd-resolved's /run/systemd/resolve/stub-resolv.conf, resolvconf's
// /run/resolvconf/resolv.conf…), so that name resolution survives the
// private /run. The file alone, not its directory: nothing else of /run
// comes back.
func resolverFiles() []string {
	real, err := filepath.EvalSymlinks("/etc/resolv.conf")
	if err != nil || !strings.HasPrefix(real, "/run/") {
		return nil
	}
	return []string{real}
}

// environ adapts the command's environment to the sandbox: caches that
// follow XDG_CACHE_HOME (Go's build cache, pip's…) would fail under a
// read-only $HOME, so they go to the private /tmp unless the environment
// says otherwise.
func (s sandbox) environ(env []string) []string {
	if s.kind == kindBwrap && !hasVar(env, "XDG_CACHE_HOME") {
		return append(env, "XDG_CACHE_HOME=/tmp/.cache")
	}
	return env
}
