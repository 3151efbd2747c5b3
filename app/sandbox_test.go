package app

import (
	"errors"
	"strings"
	"testing"

	"github.com/moteur/moteur/config"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/profile"
)

func TestStricterProfilesRequireBwrap(t *testing.T) {
	for _, tc := range []struct {
		profile   profile.Name
		opt, want string
		fails     bool
	}{
		{profile.Standard, "", "auto", false},
		{profile.Standard, "auto", "auto", false},
		{profile.Standard, "none", "none", false},
		{profile.Restricted, "auto", "bwrap", false},
		{profile.Restricted, "", "bwrap", false},
		{profile.Restricted, "bwrap", "bwrap", false},
		{profile.Restricted, "none", "", true},
		{profile.Airgapped, "auto", "bwrap", false},
		{profile.Airgapped, "none", "", true},
	} {
		got, err := sandboxMode(tc.opt, &config.Config{Profile: profile.Get(tc.profile)}, i18n.EN)
		if got != tc.want || (err != nil) != tc.fails {
			t.Errorf("%s sandbox %q: %q, %v; want %q (fails %v)", tc.profile, tc.opt, got, err, tc.want, tc.fails)
		}
		var oe *OptionError
		if err != nil && (!errors.As(err, &oe) || oe.Option != "sandbox" ||
			!strings.Contains(err.Error(), "the "+string(tc.profile)+" profile requires the bubblewrap sandbox")) {
			t.Errorf("%s: error %q is not an OptionError of the sandbox that says why", tc.profile, err)
		}
	}
}
