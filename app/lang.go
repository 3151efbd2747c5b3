package app

import (
	"github.com/moteur/moteur/config"
	"github.com/moteur/moteur/i18n"
)

// Language is the language a run of o speaks, as LoadSettings resolves it
// (o.Lang, else the configuration's lang, else MOTEUR_LANG, else French),
// without loading the settings: the command line knows it before it
// builds its help. A project root that cannot be resolved, or a file that
// cannot be read, leaves the environment to decide.
func Language(o Options) i18n.Lang {
	if o.Lang != "" {
		return o.Lang.Normalize()
	}
	r, err := o.resolved()
	if err != nil {
		return resolveLang("", "", r.Env)
	}
	return resolveLang("", config.Lang(config.LoadOptions{ProjectRoot: r.ProjectRoot, UserDir: userConfigDir(r.Env)}), r.Env)
}
