package orgpolicy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/profile"
	"github.com/moteur/moteur/strictyaml"
)

func write(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPathFromEnv(t *testing.T) {
	p, explicit := PathFromEnv(func(string) string { return "" })
	if p != DefaultPath || explicit {
		t.Errorf("unset: %q, %v", p, explicit)
	}
	p, explicit = PathFromEnv(func(k string) string {
		if k == "MOTEUR_POLICY" {
			return "/srv/policy.yaml"
		}
		return ""
	})
	if p != "/srv/policy.yaml" || !explicit {
		t.Errorf("set: %q, %v", p, explicit)
	}
}

func TestLoadFull(t *testing.T) {
	path := write(t, `# managed by IT
allowed_hosts: [api.mistral.ai, "*.corp.example", 127.0.0.1]
denied_tools: [shell_exec, "mcp_*"]
profile: restricted
min_mode: confirm
`)
	p, err := Load(path, true)
	if err != nil {
		t.Fatal(err)
	}
	if p.Path != path || p.Profile != profile.Restricted || p.MinMode != policy.Confirm {
		t.Errorf("got %+v", p)
	}
	if strings.Join(p.DeniedTools, ",") != "shell_exec,mcp_*" {
		t.Errorf("denied tools %v", p.DeniedTools)
	}
	for dest, want := range map[string]bool{
		"https://api.mistral.ai/v1":   true,
		"https://llm.corp.example/v1": true,
		"http://127.0.0.1:11434/v1":   true,
		"https://api.openai.com/v1":   false,
		"https://corp.example/v1":     false,
	} {
		if got := p.AllowedHosts.Allows(dest); got != want {
			t.Errorf("Allows(%s) = %v, want %v", dest, got, want)
		}
	}
}

// Every key is optional; a key left out restricts nothing.
func TestLoadPartialAndEmpty(t *testing.T) {
	for _, content := range []string{"", "# nothing yet\n", "---\n", "profile: airgapped\n"} {
		p, err := Load(write(t, content), false)
		if err != nil || p == nil {
			t.Fatalf("%q: %v, %v", content, p, err)
		}
		if !p.AllowedHosts.Empty() || len(p.DeniedTools) != 0 || p.MinMode != "" {
			t.Errorf("%q: restricts something: %+v", content, p)
		}
	}
}

func TestLoadMissing(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "policy.yaml")
	p, err := Load(missing, false)
	if p != nil || err != nil {
		t.Errorf("default path missing: %v, %v; want no policy", p, err)
	}
	_, err = Load(missing, true)
	if err == nil || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "MOTEUR_POLICY") {
		t.Errorf("explicit path missing: %v; want an error naming the file and $MOTEUR_POLICY", err)
	}
}

// Fail closed: anything but "the default file does not exist" is an error
// that names the file, so the caller refuses to start.
func TestLoadFailsClosed(t *testing.T) {
	dir := t.TempDir()
	dangling := filepath.Join(dir, "dangling.yaml")
	if err := os.Symlink(filepath.Join(dir, "nowhere"), dangling); err != nil {
		t.Fatal(err)
	}
	notDir := filepath.Join(write(t, "profile: standard\n"), "policy.yaml")

	cases := []struct {
		name, path, want string
	}{
		{"directory", dir, "is a directory"},
		{"dangling link at the default path", dangling, "no such file"},
		{"parent is a file", notDir, "not a directory"},
		{"malformed", write(t, "allowed_hosts: [api.mistral.ai\n"), "line 1"},
		{"unknown key", write(t, "profile: restricted\nalowed_hosts: [a.example]\n"), `line 2: unknown key "alowed_hosts"`},
		{"duplicate key", write(t, "profile: restricted\nprofile: standard\n"), "line 2"},
		{"bad host", write(t, "allowed_hosts:\n  - api.mistral.ai\n  - https://evil.example/v1\n"), "line 3: allowed_hosts"},
		{"wildcard everything", write(t, "allowed_hosts: [\"*\"]\n"), "line 1: allowed_hosts"},
		{"empty allowed_hosts", write(t, "denied_tools: [x]\nallowed_hosts: []\n"), "line 2: allowed_hosts is empty"},
		{"unknown profile", write(t, "profile: restricted-ish\n"), `line 1: profile: unknown profile "restricted-ish"`},
		{"unknown mode", write(t, "min_mode: careful\n"), "line 1: min_mode"},
		{"rule instead of tool", write(t, "denied_tools: [\"shell_exec(rm *)\"]\n"), "line 1: denied_tools"},
		{"empty tool", write(t, "denied_tools: [\"\"]\n"), "empty tool name"},
		{"bad tool glob", write(t, "denied_tools:\n  - shell_exec\n  - \"mcp_{a\"\n"), "line 3: denied_tools"},
		{"wrong type", write(t, "denied_tools: shell_exec\n"), "line 1"},
		{"list at the top", write(t, "- profile: restricted\n"), "line 1"},
		{"two documents", write(t, "profile: restricted\n---\nprofile: standard\n"), "line 2"},
		{"too large", write(t, "# "+strings.Repeat("x", strictyaml.MaxFileSize)+"\n"), "larger than"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, explicit := range []bool{false, true} {
				p, err := Load(c.path, explicit)
				if err == nil {
					t.Fatalf("explicit=%v: got %+v, want an error", explicit, p)
				}
				msg := err.Error()
				if !strings.Contains(msg, "organisation policy "+c.path) || !strings.Contains(msg, c.want) {
					t.Errorf("explicit=%v: error %q; want it to name the file and say %q", explicit, msg, c.want)
				}
			}
		})
	}
}

func TestLoadUnreadable(t *testing.T) {
	path := write(t, "profile: restricted\n")
	if err := os.Chmod(path, 0); err != nil {
		t.Fatal(err)
	}
	if f, err := os.Open(path); err == nil {
		f.Close()
		t.Skip("running as a user that chmod 000 does not stop (root?): unreadable-file case covered by the directory case")
	}
	_, err := Load(path, false)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("got %v; want permission denied naming the file", err)
	}
}

// A FIFO would block a plain read forever; it must be refused at once.
func TestLoadNotRegular(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := mkfifo(path); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	_, err := Load(path, true)
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("got %v; want not a regular file", err)
	}
}

// No error message quotes a value from the file: a misplaced secret must not
// end up in a log.
func TestErrorsDoNotQuoteValues(t *testing.T) {
	_, err := Load(write(t, "min_mode: {sk-secret-value: 1}\n"), true)
	if err == nil || strings.Contains(err.Error(), "sk-secret-value") {
		t.Errorf("got %v", err)
	}
}
