package tools

import (
	"bytes"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Control files are the files of a project that make programs run, or
// grant rights, without the user choosing to run the project's code: git
// runs what .git/config names on a mere `git status`, Moteur starts the
// servers of .mcp.json, an editor runs a workspace's tasks. An agent that
// could write them would plant code that runs later, outside any sandbox,
// with the user's rights. Two tools guard them with this one list: the
// shell mounts them read-only inside its sandbox, and the file tools ask
// the user before every write to them (Confirmer). IsControl also knows
// the control files of repositories nested in the project (a submodule's
// .git), which ControlPaths does not list.
//
// Left out on purpose, because by themselves they make nothing run:
// .git/info/ (attributes only select filter and diff drivers that a config
// defines, and exclude and sparse-checkout run nothing), .gitattributes and
// .gitmodules (git refuses the commands a .gitmodules names), and the
// project's own code and build files (Makefile, package.json, a hooks
// directory that core.hooksPath names in the work tree): the user runs those
// knowingly, and they are reviewed as code.

// ControlPath is one control path of a project.
type ControlPath struct {
	// Path is slash-separated and relative to the project root.
	Path string
	// Dir marks a directory whose whole content is control: every path
	// under it is a control path too. Without it only Path itself is.
	Dir bool
	// Why says what the path makes run or grants, as a clause that
	// follows "a file that makes programs run or grants rights: ".
	Why string
}

// gitDirControl are the control paths of a git directory, relative to it.
var gitDirControl = []ControlPath{
	{Path: "config", Why: "git runs the programs it names (core.fsmonitor, core.sshCommand, aliases, filter and diff drivers, credential helpers), some on a mere git status, and core.hooksPath chooses its hooks"},
	{Path: "config.worktree", Why: "with extensions.worktreeConfig, git reads it as its configuration, which names programs git runs"},
	{Path: "commondir", Why: "it names the directory git takes its configuration and hooks from"},
	{Path: "hooks", Dir: true, Why: "git runs the hooks in it on commit, checkout, merge and push"},
	{Path: "modules", Dir: true, Why: "it holds the submodules' repositories, each with its own configuration and hooks that git runs"},
	{Path: "worktrees", Dir: true, Why: "it holds the linked worktrees' git directories, whose files name the configuration and hooks git uses there"},
}

// projectControl are the control paths outside .git.
var projectControl = []ControlPath{
	{Path: ".moteur", Dir: true, Why: "it holds Moteur's project settings (permission rules), agents, skills and hooks, which run commands"},
	{Path: ".mcp.json", Why: "Moteur and other agents start the MCP servers it names"},
	{Path: ".envrc", Why: "direnv runs it in the user's shell on entering the directory"},
	{Path: ".vscode", Dir: true, Why: "the editor runs its tasks and the programs its settings name (interpreters, formatters, terminals)"},
	{Path: ".claude", Dir: true, Why: "it holds Claude Code's settings (permission rules) and hooks, which run commands"},
}

// dotGit is the control path of .git itself: as a directory it is not one
// (its listed files are), but as a file ("gitdir: …") or a symbolic link it
// names the git directory, so rewriting it points git at a planted one.
var dotGit = ControlPath{Path: ".git", Why: "as a file or a symbolic link it names the directory git takes its configuration and hooks from"}

// maxGitFile bounds the .git file and commondir read: a path, one line.
const maxGitFile = 4096

// ControlPaths returns the control paths of the project at root (an
// absolute path with no symbolic link in it): the fixed list, then the
// control paths of every other git directory inside the project that git
// would use — the one root's .git file or symbolic link names, and the
// common directory a commondir file names. Git directories outside the
// project are not listed: the project's confinement already keeps the
// agent from them. root "" gives the fixed list alone.
func ControlPaths(root string) []ControlPath {
	list := []ControlPath{dotGit}
	list = append(list, underGitDir(".git")...)
	list = append(list, projectControl...)
	if root == "" {
		return list
	}
	seen := map[string]bool{".git": true}
	var dirs []string
	if fi, err := os.Lstat(filepath.Join(root, ".git")); err == nil {
		switch {
		case fi.Mode().IsRegular():
			if target, ok := readGitFile(filepath.Join(root, ".git"), "gitdir:"); ok {
				dirs = append(dirs, resolveIn(root, root, target))
			}
		case fi.Mode()&os.ModeSymlink != 0:
			if real, err := filepath.EvalSymlinks(filepath.Join(root, ".git")); err == nil {
				dirs = append(dirs, real)
			}
		}
	}
	dirs = append(dirs, filepath.Join(root, ".git"))
	// Each git directory may name a common directory; git does not chain
	// them, so one step is enough.
	for _, d := range slices.Clone(dirs) {
		if target, ok := readGitFile(filepath.Join(d, "commondir"), ""); ok {
			dirs = append(dirs, resolveIn(root, d, target))
		}
	}
	for _, d := range dirs {
		rel, ok := relInside(root, d)
		if !ok || seen[rel] {
			continue
		}
		seen[rel] = true
		list = append(list, underGitDir(rel)...)
	}
	return list
}

// underGitDir returns the control paths of the git directory rel.
func underGitDir(rel string) []ControlPath {
	out := make([]ControlPath, len(gitDirControl))
	for i, c := range gitDirControl {
		c.Path = path.Join(rel, c.Path)
		out[i] = c
	}
	return out
}

// readGitFile reads the one-line file git uses to point elsewhere, and
// returns its value after prefix ("gitdir:" for a .git file, none for
// commondir).
func readGitFile(name, prefix string) (string, bool) {
	f, err := os.Open(name)
	if err != nil {
		return "", false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxGitFile))
	if err != nil {
		return "", false
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	s, ok := strings.CutPrefix(strings.TrimSpace(string(line)), prefix)
	s = strings.TrimSpace(s)
	return s, ok && s != ""
}

// resolveIn makes target, relative to base when not absolute, a real path;
// a target that does not exist is kept as cleaned, so that a git directory
// about to be created is still recognised.
func resolveIn(root, base, target string) string {
	p := filepath.FromSlash(target)
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	p = filepath.Clean(p)
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return p
}

// relInside returns p relative to root, slash-separated, when p lies
// strictly inside root.
func relInside(root, p string) (string, bool) {
	r, err := filepath.Rel(root, p)
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// IsControl returns the control path of paths that rel is, or lies under
// when it is a directory. rel is slash-separated and relative to the
// project root; it is cleaned here ("./", "a/../"), but symbolic links must
// have been resolved by the caller, as its tool resolves them. Case is
// ignored: on a case-insensitive file system (macOS, Windows) .GIT/Config
// is .git/config, and asking once too often on Linux costs little.
//
// A repository nested in the project (a submodule's work tree, a vendored
// clone) has control files too — git runs git in each submodule during a
// git status, with that submodule's configuration — so a .git component
// anywhere in rel is matched as well, with the paths git reads under it.
// ControlPaths does not list those: finding them would mean walking the
// project.
func IsControl(paths []ControlPath, rel string) (ControlPath, bool) {
	rel = strings.ToLower(path.Clean(filepath.ToSlash(rel)))
	if rel == ".." || strings.HasPrefix(rel, "../") || path.IsAbs(rel) {
		return ControlPath{}, false // not in the project
	}
	if c, ok := matchControl(paths, rel); ok {
		return c, true
	}
	parts := strings.Split(rel, "/")
	for i := 1; i < len(parts); i++ {
		if parts[i] != ".git" {
			continue
		}
		dir := strings.Join(parts[:i+1], "/")
		if i == len(parts)-1 {
			c := dotGit
			c.Path = dir
			return c, true
		}
		if c, ok := matchControl(underGitDir(dir), rel); ok {
			return c, true
		}
	}
	return ControlPath{}, false
}

// matchControl returns the entry of paths that rel, cleaned and lower
// case, is or lies under.
func matchControl(paths []ControlPath, rel string) (ControlPath, bool) {
	for _, c := range paths {
		p := strings.ToLower(c.Path)
		if rel == p || (c.Dir && strings.HasPrefix(rel, p+"/")) {
			return c, true
		}
	}
	return ControlPath{}, false
}
