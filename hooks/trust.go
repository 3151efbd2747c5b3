package hooks

// A project's config file arrived with the code, like its .mcp.json: its
// hooks are programs a cloned repository would run on the user's machine.
// They run only once the user has trusted that content, recorded in the
// same store as .mcp.json (mcp.TrustStore, keyed by project root and hash).

// TrustChecker answers whether the content whose SHA-256 is sum was
// trusted for the project at root; *mcp.TrustStore is one.
type TrustChecker interface {
	Trusted(projectRoot, sum string) bool
}

// ProjectFiles are the project configuration files that define hooks.
func (s *Set) ProjectFiles() []string {
	if s == nil {
		return nil
	}
	return s.projectFiles
}

// ProjectSHA256 is the hash (hex) of the project files' hooks, the key to
// ask the trust store and to record the user's decision under; "" when no
// project file has hooks.
func (s *Set) ProjectSHA256() string {
	if s == nil {
		return ""
	}
	return s.projectSum
}

// ProjectHooks lists the hooks from project files, for the question put
// to the user ("this project runs …").
func (s *Set) ProjectHooks() []ListedHook {
	var out []ListedHook
	for _, l := range s.List() {
		if l.Project {
			out = append(out, l)
		}
	}
	return out
}

// WithoutProject is s without the hooks of project files: what runs until
// the user trusts them. A Set without project hooks returns itself.
func (s *Set) WithoutProject() *Set {
	if s == nil || s.projectSum == "" {
		return s
	}
	out := &Set{cfg: s.cfg, byEvent: map[Event][]*entry{}}
	for ev, list := range s.byEvent {
		for _, e := range list {
			if !e.project {
				out.byEvent[ev] = append(out.byEvent[ev], e)
			}
		}
	}
	return out
}

// TrustedBy is s when its project hooks (if any) are trusted for root by
// tc, else s without them: fail closed, a nil tc trusts nothing.
func (s *Set) TrustedBy(tc TrustChecker, root string) *Set {
	if s == nil || s.projectSum == "" {
		return s
	}
	if tc != nil && tc.Trusted(root, s.projectSum) {
		return s
	}
	return s.WithoutProject()
}

// ListedHook is one configured hook, for display.
type ListedHook struct {
	Event   Event
	Matcher string // "" : all
	Hook
	Timeout float64 // seconds
	Project bool
}

// List returns the configured hooks, events in the order of the Event
// constants, hooks in configuration order.
func (s *Set) List() []ListedHook {
	if s == nil {
		return nil
	}
	var out []ListedHook
	for _, ev := range events {
		for _, e := range s.byEvent[ev] {
			m := ""
			if !e.match.all {
				m = e.match.src
			}
			out = append(out, ListedHook{Event: ev, Matcher: m, Hook: e.hook, Timeout: e.timeout.Seconds(), Project: e.project})
		}
	}
	return out
}
