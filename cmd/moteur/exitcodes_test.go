package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/moteur/moteur/i18n"
)

// Usage errors exit 2 with a message a person can act on: a flag value
// that does not parse says what the flag wants, not strconv's words; an
// unknown command or flag names the closest, at the root and below.
func TestUsageErrorsExit2WithWhatToDo(t *testing.T) {
	h := newKBHarness(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sessions", "list", "--limit", "abc"}, `--limit: "abc" is not a number`},
		{[]string{"sessions", "lst"}, `unknown command "lst" for "moteur sessions"; did you mean "list"?`},
		{[]string{"kb", "serch"}, `did you mean "search"?`},
		{[]string{"sesions"}, `did you mean "sessions"?`},
		{[]string{"kb", "create", "x", "--chunk-sise", "500"}, `unknown flag: --chunk-sise; did you mean "--chunk-size"?`},
		{[]string{"run", "--max-iterations", "x", "hi"}, `--max-iterations: "x" is not a number`},
	} {
		res := h.run(t, tc.args...)
		if res.code != exitUsage || !strings.Contains(res.stderr, tc.want) || strings.Contains(res.stderr, "strconv") {
			t.Errorf("moteur %s: exit %d, stderr %q; want 2 and %q", strings.Join(tc.args, " "), res.code, res.stderr, tc.want)
		}
	}
}

// A flag with a fixed set of values refuses any other while parsing, so
// the command never runs with it, and names the set.
func TestChoiceFlagRefusesOtherValues(t *testing.T) {
	var analyzer string
	cmd := &cobra.Command{Use: "create"}
	cmd.Flags().Var(newChoice(&analyzer, "moteur", "moteur", "raw"), "analyzer", "keyword analysis")
	if analyzer != "moteur" {
		t.Fatalf("default %q", analyzer)
	}
	err := cmd.ParseFlags([]string{"--analyzer", "foo"})
	if err == nil {
		t.Fatal("--analyzer foo was accepted")
	}
	en := &cli{lang: i18n.EN}
	if got := en.flagError(cmd, err).Error(); got != `--analyzer: "foo" is not one of moteur, raw` {
		t.Errorf("message %q", got)
	}
	fr := &cli{lang: i18n.FR}
	if got := fr.flagError(cmd, err).Error(); got != `--analyzer: "foo" n'est pas l'une des valeurs moteur, raw` {
		t.Errorf("message in French %q", got)
	}
	if err := cmd.ParseFlags([]string{"--analyzer", "raw"}); err != nil || analyzer != "raw" {
		t.Errorf("--analyzer raw: %v, %q", err, analyzer)
	}
}

// A YAML mistake is reported at its own line (here line 2, which the
// parser reads as the continuation of line 1), with the file; a
// configuration that cannot be read exits 1, as the commands document.
func TestYAMLErrorAtItsLine(t *testing.T) {
	h := newKBHarness(t)
	dir := filepath.Join(h.env["XDG_CONFIG_HOME"], "moteur")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, []byte("lang: fr\n  mode: plan\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	res := h.run(t, "ask", "question")
	if res.code != exitError || !strings.Contains(res.stderr, path+": line 2:") {
		t.Errorf("exit %d, stderr %q; want 1 and the error at line 2 of %s", res.code, res.stderr, path)
	}
}

// --version and version print the same line: the version, then the commit
// of the build when it recorded one.
func TestVersionFlagAndCommandAgree(t *testing.T) {
	h := newKBHarness(t)
	flag, cmd := h.run(t, "--version"), h.run(t, "version")
	if flag.code != 0 || cmd.code != 0 || flag.stdout != cmd.stdout || !strings.HasPrefix(flag.stdout, "moteur ") {
		t.Errorf("--version %q (exit %d), version %q (exit %d): want the same line", flag.stdout, flag.code, cmd.stdout, cmd.code)
	}
}

// The build information of a git checkout gives the commit, its time and
// whether the tree was modified; a module version replaces "dev".
func TestVersionShowsTheRevision(t *testing.T) {
	bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/moteur/moteur", Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
		{Key: "vcs.time", Value: "2026-12-01T10:00:00Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	v := versionOf("", bi)
	if v.Version != "dev" || v.Revision != "0123456789abcdef0123456789abcdef01234567" || v.Time != "2026-12-01T10:00:00Z" || !v.Modified {
		t.Fatalf("versionOf = %+v", v)
	}
	if got := v.String(); !strings.HasPrefix(got, "dev (commit 0123456789ab, 2026-12-01T10:00:00Z, modified; go") {
		t.Errorf("line %q", got)
	}
	bi.Main.Version = "v0.0.0-20261201100000-0123456789ab+dirty"
	if v := versionOf("", bi); v.Version != bi.Main.Version {
		t.Errorf("module version: %+v", v)
	}
	if v := versionOf("v1.2.3", bi); v.Version != "v1.2.3" {
		t.Errorf("link-time version: %+v", v)
	}
	if got := versionOf("", nil).String(); !strings.HasPrefix(got, "dev (go") {
		t.Errorf("no build information: %q", got)
	}
}
