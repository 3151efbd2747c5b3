package main

import (
	"testing"

	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/policy"
)

func TestParseAnswer(t *testing.T) {
	for _, tc := range []struct {
		line      string
		sandboxed bool
		want      engine.Reply
		ok        bool
	}{
		{"y", false, engine.Reply{Allow: true}, true},
		{" Yes ", false, engine.Reply{Allow: true}, true},
		{"oui", false, engine.Reply{Allow: true}, true},
		{"n", false, engine.Reply{}, true},
		{"n not that folder", false, engine.Reply{Reason: "not that folder"}, true},
		{"no,\tbecause", false, engine.Reply{Reason: "because"}, true},
		{"a", false, engine.Reply{Allow: true, Remember: true}, true},
		{"toujours", false, engine.Reply{Allow: true, Remember: true}, true},
		{"w", true, engine.Reply{Allow: true, Network: true}, true},
		{"w", false, engine.Reply{}, false},
		{"", false, engine.Reply{}, false},
		{"maybe", false, engine.Reply{}, false},
	} {
		got, ok := parseAnswer(tc.line, tc.sandboxed)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%q (sandboxed %v): %+v, %v; want %+v, %v", tc.line, tc.sandboxed, got, ok, tc.want, tc.ok)
		}
	}
}

func TestNoTerminalRefusalSaysWhatWouldAllowTheCall(t *testing.T) {
	req := func(tool, risk string) event.PermissionRequestedPayload {
		return event.PermissionRequestedPayload{Tool: tool, Risk: risk}
	}
	for _, tc := range []struct {
		mode, floor policy.Mode
		req         event.PermissionRequestedPayload
		want        string
	}{
		{policy.Confirm, "", req("write_file", "write"), "no terminal to ask: allow it with --allow 'write_file(PATTERN)' or --mode auto_write"},
		// auto_write asks about destructive calls: the mode cannot help.
		{policy.AutoWrite, "", req("shell_exec", "destructive"), "no terminal to ask: allow it with --allow 'shell_exec(PATTERN)'"},
		{policy.Confirm, policy.Confirm, req("write_file", "write"), "no terminal to ask, and the organisation policy /etc/p.yaml wants a person to confirm every change: run moteur in a terminal"},
	} {
		en := &cli{lang: i18n.EN}
		if got := en.noTerminalRefusal(tc.mode, tc.floor, "/etc/p.yaml")(tc.req); got != tc.want {
			t.Errorf("%s %s %+v:\n got %q\nwant %q", tc.mode, tc.floor, tc.req, got, tc.want)
		}
	}
}

func TestLangFlagIsStrict(t *testing.T) {
	for flag, want := range map[string]string{"": "", "en": "en", " FR ": "fr"} {
		if got, err := langFlagIn(i18n.EN, flag); err != nil || string(got) != want {
			t.Errorf("--lang %q: %q, %v; want %q", flag, got, err, want)
		}
	}
	if _, err := langFlagIn(i18n.EN, "de"); err == nil {
		t.Error("--lang de accepted")
	}
}
