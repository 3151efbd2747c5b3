package main

import (
	"strings"
	"testing"
)

func TestModelFromEnv(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want modelConfig
		err  string
	}{
		{"moteur vars", map[string]string{"MOTEUR_BASE_URL": "http://h/v1", "MOTEUR_MODEL": "m", "MOTEUR_API_KEY": "k", "MOTEUR_CONTEXT_WINDOW": "128000"},
			modelConfig{BaseURL: "http://h/v1", BaseURLVar: "MOTEUR_BASE_URL", APIKey: "k", Model: "m", ContextWindow: 128000}, ""},
		{"moteur vars win", map[string]string{"MOTEUR_BASE_URL": "http://a/v1", "OPENAI_BASE_URL": "http://b/v1", "MOTEUR_MODEL": "m", "OPENAI_MODEL": "o"},
			modelConfig{BaseURL: "http://a/v1", BaseURLVar: "MOTEUR_BASE_URL", Model: "m"}, ""},
		{"openai key with its own server", map[string]string{"OPENAI_BASE_URL": "http://b/v1", "OPENAI_API_KEY": "ok", "MOTEUR_MODEL": "m"},
			modelConfig{BaseURL: "http://b/v1", BaseURLVar: "OPENAI_BASE_URL", APIKey: "ok", Model: "m"}, ""},
		{"openai key kept from another server", map[string]string{"MOTEUR_BASE_URL": "http://a/v1", "OPENAI_API_KEY": "ok", "MOTEUR_MODEL": "m"},
			modelConfig{BaseURL: "http://a/v1", BaseURLVar: "MOTEUR_BASE_URL", Model: "m"}, ""},
		{"no base url", map[string]string{"MOTEUR_MODEL": "m"}, modelConfig{}, errNoModel.Error()},
		{"no model", map[string]string{"MOTEUR_BASE_URL": "http://a/v1"}, modelConfig{}, errNoModel.Error()},
		{"bad url", map[string]string{"MOTEUR_BASE_URL": "localhost:8080", "MOTEUR_MODEL": "m"}, modelConfig{}, "invalid MOTEUR_BASE_URL"},
		{"bad window", map[string]string{"MOTEUR_BASE_URL": "http://a/v1", "MOTEUR_MODEL": "m", "MOTEUR_CONTEXT_WINDOW": "big"}, modelConfig{}, "invalid MOTEUR_CONTEXT_WINDOW"},
	} {
		got, err := modelFromEnv(envMap(tc.env))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %+v, %v; want %+v", tc.name, got, err, tc.want)
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
		got, err := dataDir(envMap(tc.env))
		if err != nil || got != tc.want {
			t.Errorf("%v: %q, %v; want %q", tc.env, got, err, tc.want)
		}
	}
	if _, err := dataDir(envMap(nil)); err == nil {
		t.Error("no error without MOTEUR_HOME or HOME")
	}
}
