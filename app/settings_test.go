package app

import (
	"errors"
	"strings"
	"testing"

	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/policy"
)

func TestResolveLang(t *testing.T) {
	for _, tc := range []struct {
		opt             i18n.Lang
		configured, env string
		want            i18n.Lang
	}{
		{i18n.EN, "fr", "fr", i18n.EN},
		{"", "en", "fr", i18n.EN},
		{"", "", "en", i18n.EN},
		{"", "", "", i18n.FR},
		{"", "fr", "en", i18n.FR},
	} {
		if got := resolveLang(tc.opt, tc.configured, envMap(map[string]string{"MOTEUR_LANG": tc.env})); got != tc.want {
			t.Errorf("option %q config %q env %q: %q, want %q", tc.opt, tc.configured, tc.env, got, tc.want)
		}
	}
}

func TestLoadSettingsWithoutAModelIsAConfigErrorUnlessNoneIsNeeded(t *testing.T) {
	e := newTestEnv(t)
	delete(e.vars, "MOTEUR_BASE_URL")
	delete(e.vars, "MOTEUR_MODEL")
	o := e.options("")
	o.Lang = i18n.EN
	_, err := LoadSettings(o)
	var ce *ConfigError
	if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "no model configured: set MOTEUR_BASE_URL") {
		t.Fatalf("%v, want a ConfigError saying how to configure a model", err)
	}
	o.NoModel = true
	if _, err := LoadSettings(o); err != nil {
		t.Fatalf("no model needed: %v", err)
	}
}

func TestLoadSettingsModeCannotGoBelowThePolicyFloor(t *testing.T) {
	e := newTestEnv(t)
	e.usePolicy(t, "min_mode: confirm\n")
	o := e.options("")
	o.Mode = policy.AutoWrite
	_, err := LoadSettings(o)
	var oe *OptionError
	if !errors.As(err, &oe) || oe.Option != "mode" || !strings.Contains(err.Error(), "min_mode confirm") ||
		!strings.Contains(err.Error(), e.vars["MOTEUR_POLICY"]) {
		t.Fatalf("%v, want an OptionError of the mode naming the floor and the policy", err)
	}
	o.Mode = policy.ReadOnly
	s, err := LoadSettings(o)
	if err != nil {
		t.Fatal(err)
	}
	if s.Permissions.Mode() != policy.ReadOnly || s.Floor != policy.Confirm {
		t.Errorf("mode %s, floor %s; want read_only over the floor confirm", s.Permissions.Mode(), s.Floor)
	}
}

func TestLoadSettingsNotesWhatTheProjectGrants(t *testing.T) {
	e := newTestEnv(t)
	writeFile(t, e.root+"/.moteur/config.yaml", "permissions:\n  allow: [\"shell_exec(make*)\"]\n")
	s, err := LoadSettings(e.options(""))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Notes) != 1 || !strings.Contains(s.Notes[0], "shell_exec(make*)") {
		t.Errorf("notes %q, want the project's allow rule", s.Notes)
	}
}
