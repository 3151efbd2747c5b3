package app

import (
	"errors"

	"github.com/moteur/moteur/config"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/profile"
	"github.com/moteur/moteur/tools/shell"
)

// sandboxMode is the shell sandbox of a session: the option ("": auto),
// except that the profiles stricter than standard require bubblewrap, so
// that auto means bwrap there (no shell commands where it cannot run) and
// none is refused.
func sandboxMode(opt string, cfg *config.Config, lang i18n.Lang) (string, error) {
	if opt == "" {
		opt = shell.SandboxAuto
	}
	if cfg.Profile.Name == profile.Standard || cfg.Profile.Name == "" {
		return opt, nil
	}
	switch opt {
	case shell.SandboxNone:
		by := ""
		if cfg.Policy != nil && cfg.Policy.Profile != "" {
			by = i18n.Trf(lang, " (set by the organisation policy %s)", cfg.Policy.Path)
		}
		return "", &OptionError{Option: "sandbox", Err: errors.New(i18n.Trf(lang, "none is not allowed: the %s profile%s requires the bubblewrap sandbox for shell commands",
			cfg.Profile.Name, by))}
	case shell.SandboxAuto:
		return shell.SandboxBwrap, nil
	}
	return opt, nil
}
