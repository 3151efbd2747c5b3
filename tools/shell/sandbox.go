package shell

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Sandbox kinds, as Describe reports them.
const (
	kindBwrap       = "bwrap"
	kindNone        = "none"
	kindUnavailable = "unavailable" // bwrap required but unusable: nothing runs
)

// installHint ends every message about a missing bwrap.
const installHint = "install bubblewrap (Debian, Ubuntu: `apt-get install bubblewrap`; Fedora: `dnf install bubblewrap`)"

// brokenHint ends every message about a bwrap that is installed but fails.
const brokenHint = "let bubblewrap create namespaces here (it needs unprivileged user namespaces: sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu 24.04 and later an AppArmor profile for bwrap)"

// probeTimeout bounds the trial run of bwrap at New.
const probeTimeout = 10 * time.Second

// sandbox is how commands are wrapped, decided once at New.
type sandbox struct {
	kind     string
	bwrap    string   // absolute path of bwrap when kind is kindBwrap
	runFiles []string // files of /run shown again, read-only
	detail   string   // for Describe
	refusal  string   // the error result of every call when kind is kindUnavailable
}

// bwrapDetail is what the bwrap sandbox guarantees, in one line.
const bwrapDetail = "project root writable, rest of the filesystem read-only, private /tmp and /run, own pid namespace, no network unless granted per call"

// newSandbox settles the mode. bwrap is not only looked up but tried once
// with the very arguments commands will get: it is often installed where it
// cannot work (unprivileged user namespaces disabled, a container without
// the rights to mount /proc), and finding out at every command would turn
// each into the same obscure error.
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
	sb := sandbox{kind: kindBwrap, bwrap: path, detail: bwrapDetail, runFiles: resolverFiles()}
	if err := sb.probe(root, shell); err != nil {
		why := fmt.Sprintf("bubblewrap at %s cannot create its sandbox here (%v)", path, err)
		if required {
			return unavailable(why, brokenHint), nil
		}
		return sandbox{kind: kindNone, detail: why + ": commands run unsandboxed"}, nil
	}
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

// probe runs a no-op command in the sandbox.
func (s sandbox) probe(root, shell string) error {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	path, argv := s.command(root, root, false, shell, ":")
	cmd := exec.CommandContext(ctx, path, argv[1:]...)
	cmd.Env = []string{"PATH=" + fallbackPath}
	out, err := cmd.CombinedOutput()
	if err != nil {
		if msg := strings.TrimSpace(string(bytes.ToValidUTF8(out, nil))); msg != "" {
			return fmt.Errorf("%w: %s", err, msg)
		}
		return err
	}
	return nil
}

// command returns the program and argv that run script in wd: the shell
// itself, or the shell inside bwrap.
func (s sandbox) command(root, wd string, network bool, shell, script string) (string, []string) {
	if s.kind != kindBwrap {
		return shell, []string{shell, "-c", script}
	}
	// Order matters: later mounts cover earlier ones, so the project is
	// bound last — a root under /tmp or /run must not vanish under their
	// tmpfs.
	argv := []string{s.bwrap,
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
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
	argv = append(argv,
		"--bind", root, root,
		// Every namespace bwrap can create: pid (so killing bwrap's init
		// kills all that runs inside), net, ipc, uts, cgroup, user.
		"--unshare-all",
	)
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
	return s.bwrap, argv
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
