package app

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/moteur/moteur/i18n"
)

// Language agrees with the settings without loading them: the project's
// file over the user's, the option over both, the environment when no
// file says, and a broken file leaves the environment to decide.
func TestLanguageBeforeTheSettings(t *testing.T) {
	project, user := t.TempDir(), t.TempDir()
	write := func(path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"XDG_CONFIG_HOME": user, "MOTEUR_HOME": t.TempDir(), "MOTEUR_LANG": "en"}
	o := Options{ProjectRoot: project, Env: envMap(env), NoModel: true}
	if got := Language(o); got != i18n.EN {
		t.Errorf("no file, MOTEUR_LANG=en: %q", got)
	}
	write(filepath.Join(user, "moteur", "config.yaml"), "lang: fr\n")
	if got := Language(o); got != i18n.FR {
		t.Errorf("the user's file says fr: %q", got)
	}
	write(filepath.Join(project, ".moteur", "config.yaml"), "lang: en\n")
	if got := Language(o); got != i18n.EN {
		t.Errorf("the project's file says en over the user's fr: %q", got)
	}
	s, err := LoadSettings(o)
	if err != nil {
		t.Fatal(err)
	}
	if s.Lang != Language(o) {
		t.Errorf("the settings speak %q, Language says %q", s.Lang, Language(o))
	}
	o.Lang = i18n.FR
	if got := Language(o); got != i18n.FR {
		t.Errorf("the option says fr: %q", got)
	}
	o.Lang = ""
	write(filepath.Join(project, ".moteur", "config.yaml"), "lang: [broken\n")
	if got := Language(o); got != i18n.FR {
		t.Errorf("a broken project file, the user's says fr: %q", got)
	}
}
