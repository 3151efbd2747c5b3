package app

import (
	"fmt"

	"github.com/moteur/moteur/hooks"
	"github.com/moteur/moteur/i18n"
)

// Hooks are the configuration's hooks (the user's file, then the
// project's), for a session: a project's hooks came with its code, so
// they run only once the user has trusted that hooks: section — asked as
// for a .mcp.json, remembered per project and content. What cannot be used
// (a bad matcher, an unknown event, a program that does not exist) is
// returned as warnings; the other hooks still run. nil without hooks.
func (s *Settings) Hooks() (*hooks.Set, []string, error) {
	if len(s.Config.Hooks) == 0 {
		return nil, nil, nil
	}
	set, errs := hooks.New(hooks.Config{Sources: s.Config.Hooks, ProjectDir: s.opts.ProjectRoot})
	var warnings []string
	for _, err := range errs {
		warnings = append(warnings, "hooks: "+err.Error())
	}
	sum := set.ProjectSHA256()
	if sum == "" {
		return set, warnings, nil
	}
	store, root := s.trustStore(), s.opts.ProjectRoot
	if !store.Trusted(root, sum) {
		ok, err := s.confirmTrust(projectHooks(set))
		if err != nil {
			return nil, nil, err
		}
		if ok {
			if err := store.Trust(root, sum); err != nil {
				return nil, nil, fmt.Errorf("trust the project's hooks: %w", err)
			}
		}
	}
	trusted := set.TrustedBy(store, root)
	if len(trusted.ProjectHooks()) < len(set.ProjectHooks()) {
		warnings = append(warnings, i18n.Trf(s.Lang, "hooks: the hooks of %v came with the project and are not trusted yet: not run "+
			"(moteur asks on a terminal, or pass --trust-project; asked again whenever they change)", set.ProjectFiles()))
	}
	return trusted, warnings, nil
}

// projectHooks is what trusting the project's hooks would run.
func projectHooks(set *hooks.Set) TrustRequest {
	req := TrustRequest{What: "hooks", SHA256: set.ProjectSHA256()}
	if files := set.ProjectFiles(); len(files) > 0 {
		req.Path = files[0]
	}
	for _, h := range set.ProjectHooks() {
		m := h.Matcher
		if m == "" {
			m = "*"
		}
		req.Items = append(req.Items, fmt.Sprintf("%s (%s): %s", h.Event, m, h.Command))
	}
	return req
}
