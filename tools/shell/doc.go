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
//     and a private, empty /tmp that disappears with the call;
//   - a private /run, so the host's D-Bus, Docker and other daemon sockets
//     there cannot be reached (talking to the user's D-Bus session would be
//     a way out of any sandbox); only /run/systemd/resolve is shown again,
//     read-only, for name resolution;
//   - a minimal /dev, its own /proc, and new pid, ipc, uts, cgroup and
//     network namespaces: no network at all, not even the host's loopback,
//     unless the user granted the network to that one call
//     (tools.WithNetwork), which shares the host's network namespace;
//   - --die-with-parent, so the sandbox dies with Moteur, and a pid
//     namespace whose processes all die with the sandbox's init: killing
//     bwrap kills everything inside, even processes that left the group.
//
// Limits, stated plainly: the sandbox confines writes and the network, not
// reads — a command can read every file the user can (keys under ~/.ssh
// included) and print it, and its output goes to the model. A network grant
// opens the host's whole network, its loopback services and abstract Unix
// sockets included. Files written under $HOME, /var or /etc fail, so tools
// that keep caches there may need XDG_CACHE_HOME, which the sandbox points
// at its /tmp unless the environment sets it. Without bubblewrap (Sandbox
// "none", or "auto" where it is missing or broken) commands run with the
// user's full rights and only the guarantees of the first list hold; a
// process that leaves its session (setsid, a daemon) escapes the kill there.
//
// # Risk
//
// RiskOf classes a call as a probe when every command of its line starts
// with a read-only program (see risk.go for the list and the rules) and as
// a write otherwise; a probe's result is marked undoable, everything else
// NotUndoable, since a rewind cannot restore what a command changed.
package shell
