package app

import "testing"

func envMap(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestUserConfigDir(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"}, "/x/moteur"},
		{map[string]string{"XDG_CONFIG_HOME": "relative", "HOME": "/h"}, "/h/.config/moteur"},
		{map[string]string{"HOME": "/h"}, "/h/.config/moteur"},
		{nil, ""},
	} {
		if got := userConfigDir(envMap(tc.env)); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.env, got, tc.want)
		}
	}
}

func TestDataDir(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"MOTEUR_HOME": "/m", "XDG_DATA_HOME": "/x", "HOME": "/h"}, "/m"},
		{map[string]string{"XDG_DATA_HOME": "/x", "HOME": "/h"}, "/x/moteur"},
		{map[string]string{"XDG_DATA_HOME": "relative", "HOME": "/h"}, "/h/.local/share/moteur"},
		{map[string]string{"HOME": "/h"}, "/h/.local/share/moteur"},
	} {
		got, err := DataDir(envMap(tc.env))
		if err != nil || got != tc.want {
			t.Errorf("%v: %q, %v; want %q", tc.env, got, err, tc.want)
		}
	}
	if _, err := DataDir(envMap(nil)); err == nil {
		t.Error("no error without MOTEUR_HOME or HOME")
	}
}
