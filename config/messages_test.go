package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A misspelt key of the configuration names the key meant, with its line.
func TestUnknownConfigKeySaysWhichWasMeant(t *testing.T) {
	for in, want := range map[string]string{
		"lang: fr\npremissions:\n  allow: []\n":                                 `line 2: unknown key "premissions"; did you mean "permissions"?`,
		"providers:\n  - base_url: http://localhost:8080/v1\n    modle: qwen\n": `line 3: unknown key "modle"; did you mean "model"?`,
	} {
		path := filepath.Join(t.TempDir(), "config.yaml")
		if err := os.WriteFile(path, []byte(in), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := ReadFile(path)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadFile(%q) = %v, want %q", in, err, want)
		}
	}
}
