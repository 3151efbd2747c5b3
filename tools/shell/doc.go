// Package shell owns the shell_exec tool: it runs one command line with bash
// (sh when bash is absent) in the project, bounded in time, output and
// environment, and — where bubblewrap is installed — inside a sandbox.
//
// # What every command gets, sandboxed or not
//
//   - A minimal environment (PATH, HOME, LANG, TERM=dumb) rather than
//     Moteur's own: API keys and tokens in the parent environment never reach
//     a command. Config.Env replaces that base; the call's env argument adds
//     to it.
//   - A working directory inside the project root; "..", absolute paths and
//     symbolic links that lead out are refused. Without the sandbox this only
//     chooses where the command starts: the command itself may cd anywhere.
//   - Its own session, hence its own process group and no controlling
//     terminal: a command cannot read the user's terminal (sudo and ssh
//     prompts fail at once instead of hanging) nor push keystrokes into it
//     (TIOCSTI).
//   - A deadline (timeout_sec, at most 600 s). At the deadline, or when the
//     turn is cancelled, the whole process group gets SIGTERM and, after a
//     short grace, SIGKILL. Processes the command left running in the
//     background are stopped the same way once it exits: nothing it started
//     outlives the call.
//   - Bounded output: stdout and stderr keep their beginning and end up to
//     their caps, with a marker saying how many bytes were dropped; the rest
//     is read and discarded so a command printing forever neither blocks nor
//     fills memory.
//
// # The bubblewrap sandbox
//
// With bwrap in force (Config.Sandbox "auto" where it is installed and
// works, or "bwrap"), a command additionally runs with:
//
//   - the whole filesystem read-only, except the project root (writable)
//     and a private, empty /tmp that disappears with the call; /proc/sys
//     read-only too (bwrap leaves its files writable to their owner, and
//     kernel.core_pattern names a program the kernel runs as root);
//   - the project's control files read-only (see below);
//   - a private /run, so the host's D-Bus, Docker and other daemon sockets
//     there cannot be reached (talking to the user's D-Bus session would be
//     a way out of any sandbox); only the file /etc/resolv.conf leads to
//     there (systemd-resolved's) is shown again, read-only, for name
//     resolution;
//   - a minimal /dev, its own /proc, and new pid, ipc, uts, cgroup and
//     network namespaces: no network at all, not even the host's loopback,
//     unless the user granted the network to that one call
//     (tools.WithNetwork), which shares the host's network namespace;
//   - a user namespace of its own (--unshare-user, required), in which the
//     command is SandboxUID (65534, nobody) when Moteur runs as root and
//     the user's own uid otherwise; every capability dropped (--cap-drop
//     ALL: bwrap run by root keeps them all unless told); no_new_privs, so
//     setuid programs and file capabilities grant nothing;
//   - a seccomp filter (seccomp.go), compiled once in pure Go and handed to
//     bwrap through --seccomp on descriptor 3, that refuses with EPERM the
//     mount API (mount, umount2, pivot_root, chroot, open_tree, move_mount,
//     fsopen and the rest), new namespaces (unshare, setns, clone with a
//     CLONE_NEW* flag; clone3, whose flags it cannot read, gets ENOSYS and
//     the C library falls back to clone), ptrace and process_vm_readv/writev,
//     the kernel keyrings, module loading, kexec, bpf, perf_event_open,
//     io_uring, swapon/swapoff, reboot, and setting a setuid or setgid bit
//     (chmod, or creating a file with it; openat2 gets ENOSYS), which the
//     file would keep on the host. A call of another architecture (i386
//     calls from an x86-64 process) kills the process: its numbers would
//     pass every rule;
//   - --die-with-parent, so the sandbox dies with Moteur, and a pid
//     namespace whose processes all die with the sandbox's init: killing
//     bwrap kills everything inside, even processes that left the group.
//
// This holds as root: the attack that motivated it — umount -l /tmp, then
// mount -o remount,bind,rw / and a write to a host file — fails at every
// step: the command holds no CAP_SYS_ADMIN and the filter refuses umount2
// and mount; unshare -r, which would give a fresh namespace with every
// capability, is refused by the filter (and the mounts copied into it
// would be locked read-only anyway).
//
// New tries the sandbox once, with the very arguments every command gets,
// and reads /proc/self/status and uid_map inside it: Isolation reports what
// that trial run found, not what was asked for, and Sandbox
// (tools.Isolated) gives it to SessionStarted with Describe's kind and
// detail. GrantsNetwork (tools.NetworkGranter) is true only with bwrap in
// force, the one case where a call can be given the network it otherwise
// lacks. If the filter cannot be
// applied (an architecture the assembler does not know, a kernel without
// seccomp filters), mode "bwrap" refuses every command, saying why, rather
// than run weaker; mode "auto" runs without the filter and its description
// says so. The same goes for any other guarantee the trial run does not
// find.
//
// # Control files
//
// tools.ControlPaths lists the files that make programs run or grant rights
// without the user choosing to run the project's code: .git/config,
// .git/config.worktree, .git/commondir, .git/hooks/, .git/modules/,
// .git/worktrees/, .git itself when it is a file, .moteur/, .mcp.json,
// .envrc, .vscode/, .claude/ — and those of a git directory inside the
// project that a .git file names. Before each command the ones that exist
// are bound read-only over the project, and the directories above them
// (.git) are bound onto themselves, since a mount point cannot be renamed:
// `mv .git .git-old && git init` fails. A control path that is a symbolic
// link is followed to its target, which is protected; the link itself
// cannot be. The file tools ask the user before writing any of them
// (tools/files, tools.Confirmer).
//
// What does not exist when a command starts cannot be bound without
// creating it in the user's project, so a command in a project without
// .git can `git init` and write a hook, one without .mcp.json can create
// it, and one can replace a symbolic link. Every control path (and each
// entry of a control directory) is therefore looked at before and after
// each command, with or without the sandbox, and what appeared, changed or
// went away is reported in a warning at the top of the result, for the
// model and for the user who reads it. That is a report, not a barrier:
// the user must review those files before running git, Moteur or an editor
// there.
//
// Only the project root's repository is bound. A nested one — a
// submodule's work tree with its .git file, a vendored clone's
// vendor/x/.git — is not found without walking the project, so a command
// can rewrite it, or create one and register it as a submodule in the
// (writable) index; git runs git in each submodule during a git status,
// with that repository's configuration. The file tools ask before writing
// any .git path at any depth (tools.IsControl); the sandbox does not stop
// a command from doing so.
//
// Limits, stated plainly: the sandbox confines writes and the network, not
// reads — a command can read every file the user can (keys under ~/.ssh
// included) and print it, and its output goes to the model. Run as root,
// the command is nobody inside but root outside (an unprivileged user
// namespace maps only its creator's uid): files it writes in the project
// belong to root, root's files and sockets reachable inside (outside /run
// and /tmp, which are private) are its own, and files of another owner in
// the project are read-only to it, since it has no capability to override
// their permissions — run Moteur as the project's owner. A network grant
// opens the host's whole network, its loopback services and abstract Unix
// sockets included. Inside, git config, git submodule and git worktree
// cannot change the repository's configuration; strace, gdb and perf do
// not work. Files written under $HOME, /var or /etc fail, so tools that
// keep caches there may need XDG_CACHE_HOME, which the sandbox points at
// its /tmp unless the environment sets it. Without bubblewrap (Sandbox
// "none", or "auto" where it is missing or broken) commands run with the
// user's full rights and only the guarantees of the first list, and the
// report of changed control files, hold; a process that leaves its session
// (setsid, a daemon) escapes the kill there.
//
// # Risk
//
// RiskOf classes a call as a probe, a write or a destructive call from
// package shellcmd's reading of its line (see policy.go); MustConfirm asks
// the user, in every mode, for a line whose code is only known at run time
// or that cannot be parsed; the call's env and stdin count as part of it.
// A probe's result is undoable, everything else NotUndoable, since a rewind
// cannot restore what a command changed.
package shell
