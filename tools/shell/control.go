package shell

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/moteur/moteur/tools"
)

// The sandbox binds the control paths that exist when a command starts;
// it cannot bind one that does not exist yet without creating it in the
// user's project. So a command in a project without .git can `git init`
// and write .git/hooks/pre-commit, and one in a project without .mcp.json
// can create it. What it cannot do is do so unseen: every control path is
// looked at before and after each command, and what appeared, changed or
// went away is reported at the top of the result, for the model and the
// user who reads it. Without the sandbox the same check runs, and it is
// then the only one.

// maxDirEntries bounds how many entries of a control directory are looked
// at: hooks, editor and agent settings are a handful of files.
const maxDirEntries = 256

// pathState is what one path looked like: enough to tell that it was
// created, removed, replaced or written.
type pathState struct {
	exists bool
	mode   fs.FileMode
	size   int64
	mtime  int64
	ctime  int64
	ino    uint64
	dev    uint64
}

// statPath returns p's state. A directory's times and size are left out:
// they change whenever git writes a lock file in .git or in a submodule's
// directory, and what matters in a control directory, its entries, is
// looked at one by one.
func statPath(p string) pathState {
	fi, err := os.Lstat(p)
	if err != nil {
		return pathState{}
	}
	s := pathState{exists: true, mode: fi.Mode()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.ino, s.dev = st.Ino, uint64(st.Dev)
		if !fi.IsDir() {
			s.ctime = st.Ctim.Nano()
		}
	}
	if !fi.IsDir() {
		s.size, s.mtime = fi.Size(), fi.ModTime().UnixNano()
	}
	return s
}

// controlSnapshot maps a control path, or an entry of a control directory,
// relative to the root, to its state.
type controlSnapshot map[string]pathState

// snapshotControl looks at every control path of paths and at the direct
// entries of the control directories.
func snapshotControl(root string, paths []tools.ControlPath) controlSnapshot {
	snap := controlSnapshot{}
	for _, c := range paths {
		abs := filepath.Join(root, filepath.FromSlash(c.Path))
		st := statPath(abs)
		snap[c.Path] = st
		if !c.Dir || !st.mode.IsDir() {
			continue
		}
		f, err := os.Open(abs)
		if err != nil {
			continue
		}
		names, _ := f.Readdirnames(maxDirEntries)
		_ = f.Close()
		for _, n := range names {
			snap[path.Join(c.Path, n)] = statPath(filepath.Join(abs, n))
		}
	}
	return snap
}

// controlChanges lists what differs between two snapshots, as
// "path (created)" and the like, sorted. A path seen in one snapshot only
// was absent from the other (an entry of a directory that appeared).
func controlChanges(before, after controlSnapshot) []string {
	var out []string
	for p := range joinKeys(before, after) {
		b, a := before[p], after[p]
		var what string
		switch {
		case !b.exists && !a.exists:
			continue
		case !b.exists:
			what = "created"
		case !a.exists:
			what = "removed"
		case b.ino != a.ino || b.dev != a.dev || b.mode.Type() != a.mode.Type():
			what = "replaced"
		case b != a:
			what = "changed"
		default:
			continue
		}
		out = append(out, p+" ("+what+")")
	}
	slices.Sort(out)
	return out
}

func joinKeys(a, b controlSnapshot) map[string]struct{} {
	keys := make(map[string]struct{}, len(a)+len(b))
	for k := range a {
		keys[k] = struct{}{}
	}
	for k := range b {
		keys[k] = struct{}{}
	}
	return keys
}

// maxNamed bounds the paths a note names.
const maxNamed = 12

// controlNote is the warning of a command that changed control paths, or
// "".
func controlNote(changes []string, sandboxed bool) string {
	if len(changes) == 0 {
		return ""
	}
	named := changes
	more := ""
	if len(named) > maxNamed {
		more = fmt.Sprintf(" and %d more", len(named)-maxNamed)
		named = named[:maxNamed]
	}
	var why string
	if sandboxed {
		why = "The sandbox keeps control files read-only only when they exist before a command starts."
	} else {
		why = "Without the sandbox nothing keeps them read-only."
	}
	return fmt.Sprintf("warning: this command created or changed control files of the project: %s%s. "+
		"They make programs run or grant rights (git runs what .git/config names and the hooks in .git/hooks; Moteur reads .moteur/ and .mcp.json; editors run .vscode/ tasks). "+
		"%s The user should review them before running git, Moteur or an editor in this project.",
		strings.Join(named, ", "), more, why)
}
