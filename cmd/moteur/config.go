package main

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/moteur/moteur/i18n"
)

// modelConfig is the model a run talks to, read from the environment.
type modelConfig struct {
	BaseURL string
	// BaseURLVar names the variable BaseURL came from, for messages.
	BaseURLVar string
	APIKey     string
	Model      string
	// ContextWindow is 0 when unset: the engine's default applies.
	ContextWindow int
}

// errNoModel means the environment names no model; the caller prints the
// localised message that says what to set.
var errNoModel = errors.New("no model configured")

// modelFromEnv reads MOTEUR_BASE_URL, MOTEUR_API_KEY and MOTEUR_MODEL, with
// OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL as fallbacks.
//
// OPENAI_API_KEY is used only with OPENAI_BASE_URL's server: people keep it
// in their shell for other tools, and sending it to whatever MOTEUR_BASE_URL
// names (another vendor, a colleague's proxy) would leak it.
func modelFromEnv(env func(string) string) (modelConfig, error) {
	get := func(name string) string { return strings.TrimSpace(env(name)) }
	var m modelConfig
	m.BaseURL, m.BaseURLVar = get("MOTEUR_BASE_URL"), "MOTEUR_BASE_URL"
	if m.BaseURL == "" {
		m.BaseURL, m.BaseURLVar = get("OPENAI_BASE_URL"), "OPENAI_BASE_URL"
	}
	m.APIKey = get("MOTEUR_API_KEY")
	if m.APIKey == "" && m.BaseURL == get("OPENAI_BASE_URL") {
		m.APIKey = get("OPENAI_API_KEY")
	}
	m.Model = get("MOTEUR_MODEL")
	if m.Model == "" {
		m.Model = get("OPENAI_MODEL")
	}
	if m.BaseURL == "" || m.Model == "" {
		return modelConfig{}, errNoModel
	}
	if u, err := url.Parse(m.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return modelConfig{}, fmt.Errorf("invalid %s %q: want an http or https URL such as https://api.mistral.ai/v1", m.BaseURLVar, m.BaseURL)
	}
	if s := get("MOTEUR_CONTEXT_WINDOW"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			return modelConfig{}, fmt.Errorf("invalid MOTEUR_CONTEXT_WINDOW %q: want a positive number of tokens", s)
		}
		m.ContextWindow = n
	}
	return m, nil
}

// providerName names the provider after its server's host, so that errors
// and the log say which server failed ("api.mistral.ai: HTTP 401: …").
func (m modelConfig) providerName() string {
	if u, err := url.Parse(m.BaseURL); err == nil && u.Host != "" {
		return u.Host
	}
	return "openai"
}

// resolveLang picks the language: the --lang flag, else MOTEUR_LANG, else
// French. The flag is checked strictly since a typo there is a mistake the
// user can fix; the variable is read leniently.
func resolveLang(flag string, env func(string) string) (i18n.Lang, error) {
	if flag != "" {
		switch strings.ToLower(strings.TrimSpace(flag)) {
		case "fr":
			return i18n.FR, nil
		case "en":
			return i18n.EN, nil
		}
		return "", usageErrorf("invalid --lang %q: want fr or en", flag)
	}
	return i18n.Parse(env("MOTEUR_LANG")), nil
}
