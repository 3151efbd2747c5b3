package app

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/moteur/moteur/classify"
	"github.com/moteur/moteur/effect"
	"github.com/moteur/moteur/skills"
	"github.com/moteur/moteur/tools"
	"github.com/moteur/moteur/tools/files"
	"github.com/moteur/moteur/tools/plan"
	"github.com/moteur/moteur/tools/shell"
	"github.com/moteur/moteur/tools/web"
)

// sessionTools are the tools of one session: the planning tools, the file
// tools, shell_exec, then the extra ones.
type sessionTools struct {
	reg   *tools.Registry
	files *files.Set // closed with the session
	shell *shell.Exec
	// web keeps the pages the web tools read, which read_file serves.
	web web.Snapshots
	// closers are closed with the session's tools, after the file tools:
	// what other tools hold for the session (the data tools' databases).
	closers []io.Closer
}

// onClose has c closed with the session's tools.
func (st *sessionTools) onClose(c io.Closer) { st.closers = append(st.closers, c) }

// newSessionTools makes the tools of a session in the project at root: the
// file tools confined to root, saving what they replace in blobs (so that
// a rewind can bring it back) and reading the web pages kept in snaps, and shell_exec isolated as sandbox says
// (shell.SandboxAuto, SandboxBwrap or SandboxNone). cl finds the classified
// paths and markings in what the tools show. allow says which of the
// built-in tools the model is offered (nil: all, as without a custom
// agent); the extra ones always are.
func newSessionTools(root string, blobs effect.Blobs, sandbox string, cl *classify.Classifier, sk *skills.Set, snaps web.Snapshots, allow func(string) bool, extra []func() tools.Tool) (_ *sessionTools, err error) {
	reg := tools.NewRegistry(tools.Config{})
	if err := registerAllowed(reg, allow, plan.Register); err != nil {
		return nil, fmt.Errorf("register tools: %w", err)
	}
	// The classify paths of the configuration: a file under one makes the
	// session sensitive as soon as a tool's result draws on it.
	classified := func(rel string) (string, bool) {
		m, ok := cl.Path(root, filepath.FromSlash(rel))
		return m.Rule, ok
	}
	// The markings of the configuration: a file whose text carries one
	// makes the session sensitive once a tool shows any of it.
	marked := func(text string) (string, bool) {
		m, ok := cl.Text(text)
		return m.Marking, ok
	}
	fc := files.Config{Root: root, Blobs: blobs, Classify: classified, Markings: marked, Web: webReader{snaps}}
	sc := shell.Config{Root: root, Sandbox: sandbox}
	if len(sk.List()) > 0 || len(sk.SkillDirs()) > 0 {
		// The skills' files are read through skill:// and run with
		// skill_name; they are read-only to the file tools and the shell.
		fc.Skills, sc.Skills = sk, sk
	}
	fs, err := files.New(fc)
	if err != nil {
		return nil, fmt.Errorf("register tools: %w", err)
	}
	st := &sessionTools{reg: reg, files: fs, web: snaps}
	defer func() {
		if err != nil {
			_ = st.close()
		}
	}()
	for _, t := range fs.Tools() {
		if allow != nil && !allow(t.Name()) {
			continue
		}
		if err := reg.Register(t); err != nil {
			return nil, fmt.Errorf("register tools: %w", err)
		}
	}
	// The shell is made even when the agent does not offer it: the
	// session describes its sandbox.
	if st.shell, err = shell.New(sc); err != nil {
		return nil, fmt.Errorf("register tools: %w", err)
	}
	if allow == nil || allow(st.shell.Name()) {
		if err := reg.Register(st.shell); err != nil {
			return nil, fmt.Errorf("register tools: %w", err)
		}
	}
	for _, newTool := range extra {
		if err := reg.Register(newTool()); err != nil {
			return nil, fmt.Errorf("register tools: %w", err)
		}
	}
	return st, nil
}

// registerAllowed runs register, which adds tools to a registry, and keeps
// in reg only those allow lets through (nil: all of them).
func registerAllowed(reg *tools.Registry, allow func(string) bool, register func(*tools.Registry) error) error {
	if allow == nil {
		return register(reg)
	}
	staging := tools.NewRegistry(tools.Config{})
	if err := register(staging); err != nil {
		return err
	}
	for _, name := range staging.Names() {
		t, ok := staging.Lookup(name)
		if !ok || !allow(name) {
			continue
		}
		if err := reg.Register(t); err != nil {
			return err
		}
	}
	return nil
}

// close releases the file tools' root and what the other tools hold.
func (st *sessionTools) close() error {
	err := st.files.Close()
	for _, c := range st.closers {
		err = errors.Join(err, c.Close())
	}
	return err
}
