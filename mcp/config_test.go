package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func lookupMap(m map[string]string) LookupFunc {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func writeFile(t testing.TB, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func serverByName(t testing.TB, l Loaded, name string) ServerConfig {
	t.Helper()
	for _, s := range l.Servers {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no server %q in %+v", name, l.Servers)
	return ServerConfig{}
}

func TestLoadTheFormatsUsersHave(t *testing.T) {
	data, err := os.ReadFile("testdata/config/project.mcp.json")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	writeFile(t, filepath.Join(root, ".mcp.json"), string(data))
	l := Load(LoadConfig{ProjectRoot: root, LookupEnv: lookupMap(map[string]string{
		"GITHUB_TOKEN": "ghp_x", "TENANT": "acme", "DOCS_TOKEN": "tok",
	})})
	if len(l.Errors) != 0 || len(l.Warnings) != 0 {
		t.Fatalf("errors %v warnings %v", l.Errors, l.Warnings)
	}
	gh := serverByName(t, l, "github")
	if gh.Transport != TransportStdio || gh.Command != "npx" || gh.Args[2] != "--org=moteur" || gh.Env["GITHUB_PERSONAL_ACCESS_TOKEN"] != "ghp_x" {
		t.Fatalf("github = %+v", gh)
	}
	if !gh.Project || gh.Trusted {
		t.Fatalf("an untrusted project server: %+v", gh)
	}
	docs := serverByName(t, l, "docs")
	if docs.Transport != TransportHTTP || docs.URL != "https://mcp.example.com/acme/mcp" || docs.Headers["Authorization"] != "Bearer tok" {
		t.Fatalf("docs = %+v", docs)
	}
	for name, want := range map[string]string{"legacy": TransportSSE, "explicit": TransportStdio, "streamable": TransportHTTP, "inferred": TransportHTTP} {
		if got := serverByName(t, l, name).Transport; got != want {
			t.Errorf("%s transport = %s, want %s", name, got, want)
		}
	}
	ex := serverByName(t, l, "explicit")
	if !ex.Local || ex.StartupTimeout != 5*time.Second {
		t.Fatalf("explicit = %+v", ex)
	}
	if !serverByName(t, l, "off").Disabled {
		t.Fatal("off not disabled")
	}
	if got := serverByName(t, l, "relative").Cwd; got != filepath.Join(root, "tools") {
		t.Fatalf("relative cwd = %q", got)
	}
	if l.Project == nil || l.Project.Trusted || len(l.Project.SHA256) != 64 {
		t.Fatalf("project = %+v", l.Project)
	}
	for i := 1; i < len(l.Servers); i++ {
		if l.Servers[i-1].Name > l.Servers[i].Name {
			t.Fatal("servers not sorted")
		}
	}
}

func TestLoadBadInputNamesFileLineAndKey(t *testing.T) {
	for _, c := range []struct {
		name, file string
		// fileErr: the whole file is refused; else the server srv has Err.
		fileErr bool
		srv     string
		want    []string
	}{
		{"syntax", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}", true, "", []string{":3:", "invalid JSON"}},
		{"truncated", "{\"mcpServers\": {\"a\": ", true, "", []string{":1:", "invalid JSON"}},
		{"not an object", "[1,2]", true, "", []string{":1:1", "want an object, found an array"}},
		{"mcpServers not an object", "{\n\"mcpServers\": [\"a\"]\n}", true, "", []string{":2:15", "mcpServers", "want an object"}},
		{"args not strings", "{\"mcpServers\": {\n  \"a\": {\n    \"command\": \"x\",\n    \"args\": [\"ok\", 3]\n  }\n}}", false, "a", []string{":4:20", "mcpServers.a.args", "want an array of strings, found number"}},
		{"env not strings", "{\"mcpServers\": {\"a\": {\"command\": \"x\",\n \"env\": {\"PORT\": 3000}}}}", false, "a", []string{":2:", "mcpServers.a.env", "want an object of strings"}},
		{"command not a string", "{\"mcpServers\": {\"a\": {\"command\": [\"x\"]}}}", false, "a", []string{":1:", "mcpServers.a.command", "want a string"}},
		{"unknown transport", "{\"mcpServers\": {\"a\": {\n\"type\": \"websocket\", \"url\": \"ws://x\"}}}", false, "a", []string{":2:9", "mcpServers.a.type", `unknown transport "websocket"`}},
		{"bad name", "{\"mcpServers\": {\n  \"my server!\": {\"command\": \"x\"}}}", false, "my server!", []string{":2:3", `mcpServers.my server!`, "only letters, digits"}},
		{"neither", "{\"mcpServers\": {\"a\": {\"args\": []}}}", false, "a", []string{"neither \"command\""}},
		{"both", "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"url\": \"http://h\"}}}", false, "a", []string{"both"}},
		{"http without url", "{\"mcpServers\": {\"a\": {\"type\": \"http\"}}}", false, "a", []string{"needs \"url\""}},
		{"bad url", "{\"mcpServers\": {\"a\": {\"url\": \"ftp://h/x\"}}}", false, "a", []string{"mcpServers.a.url", "http:// or https://"}},
		{"missing variable", "{\"mcpServers\": {\"a\": {\"command\": \"x\",\n \"env\": {\"T\": \"${NOPE}\"}}}}", false, "a", []string{":2:9", "mcpServers.a.env.T", "NOPE is not set"}},
		{"bad timeout", "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"startup_timeout_ms\": -1}}}", false, "a", []string{"startup_timeout_ms", "positive"}},
		{"bad oauth", "{\"mcpServers\": {\"a\": {\"url\": \"https://h/mcp\", \"oauth\": {\"callbackPort\": 70000}}}}", false, "a", []string{"mcpServers.a.oauth.callbackPort", "port number"}},
		{"oauth not an object", "{\"mcpServers\": {\"a\": {\"url\": \"https://h/mcp\", \"oauth\": \"id\"}}}", false, "a", []string{"mcpServers.a.oauth", "clientId"}},
		{"twice in a file", "{\"mcpServers\": {\"a\": {\"command\": \"x\"},\n\"a\": {\"command\": \"y\"}}}", false, "a", []string{":2:1", "defined twice", "line 1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			path := writeFile(t, filepath.Join(root, ".mcp.json"), c.file)
			l := Load(LoadConfig{ProjectRoot: root})
			var msg string
			if c.fileErr {
				if len(l.Errors) != 1 || len(l.Servers) != 0 {
					t.Fatalf("errors %v servers %+v", l.Errors, l.Servers)
				}
				msg = l.Errors[0].Error()
			} else {
				if len(l.Errors) != 0 {
					t.Fatalf("file errors %v", l.Errors)
				}
				s := serverByName(t, l, c.srv)
				if s.Err == nil {
					t.Fatalf("no error for %q: %+v", c.srv, s)
				}
				msg = s.Err.Error()
			}
			if !strings.HasPrefix(msg, path+":") {
				t.Errorf("%q does not start with the file", msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%q lacks %q", msg, w)
				}
			}
		})
	}
}

func TestLoadOneBadServerKeepsTheOthers(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, ".mcp.json"), `{"mcpServers": {"bad name": {"command": "x"}, "good": {"command": "y"}}}`)
	l := Load(LoadConfig{ProjectRoot: root})
	if serverByName(t, l, "good").Err != nil || serverByName(t, l, "bad name").Err == nil {
		t.Fatalf("%+v", l.Servers)
	}
}

func TestLoadUnknownKeysWarn(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, ".mcp.json"), "{\"mcpServers\": {\"a\": {\"command\": \"x\",\n \"autoApprove\": [\"y\"], \"url\": \"http://h\", \"type\": \"stdio\"}}, \"inputs\": []}")
	l := Load(LoadConfig{ProjectRoot: root})
	if s := serverByName(t, l, "a"); s.Err != nil {
		t.Fatalf("an unknown key failed the server: %v", s.Err)
	}
	all := strings.Join(l.Warnings, "\n")
	for _, w := range []string{":2:2: mcpServers.a.autoApprove: unknown key ignored", "mcpServers.a.url: ignored for a stdio server", "inputs: unknown key ignored"} {
		if !strings.Contains(all, w) {
			t.Errorf("warnings lack %q:\n%s", w, all)
		}
	}
}

func TestLoadUserWinsAndDuplicateIsReported(t *testing.T) {
	root := t.TempDir()
	user := writeFile(t, filepath.Join(t.TempDir(), "mcp.json"), `{"mcpServers": {"shared": {"command": "mine"}, "u": {"command": "u"}}}`)
	proj := writeFile(t, filepath.Join(root, ".mcp.json"), `{"mcpServers": {"shared": {"command": "theirs"}, "p": {"command": "p"}}}`)
	l := Load(LoadConfig{ProjectRoot: root, UserFile: user})
	s := serverByName(t, l, "shared")
	if s.Command != "mine" || s.Source != user || !s.Trusted || s.Project {
		t.Fatalf("shared = %+v", s)
	}
	if len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], `"shared" is defined in both `+user+" and "+proj) {
		t.Fatalf("warnings %v", l.Warnings)
	}
	if len(l.Servers) != 3 {
		t.Fatalf("servers %+v", l.Servers)
	}
}

func TestLoadMissingFilesAreNothing(t *testing.T) {
	l := Load(LoadConfig{ProjectRoot: t.TempDir(), UserFile: filepath.Join(t.TempDir(), "none.json")})
	if len(l.Servers)+len(l.Errors)+len(l.Warnings) != 0 || l.Project != nil {
		t.Fatalf("%+v", l)
	}
}

func TestExpand(t *testing.T) {
	look := lookupMap(map[string]string{"A": "1", "EMPTY": ""})
	for in, want := range map[string]string{
		"x":                "x",
		"${A}":             "1",
		"a${A}b${A}":       "a1b1",
		"${B:-def}":        "def",
		"${EMPTY:-def}":    "def",
		"${A:-def}":        "1",
		"$A and $":         "$A and $",
		"${EMPTY}":         "",
		"${B:-}":           "",
		"${B:-with space}": "with space",
	} {
		got, err := expand(in, look)
		if err != nil || got != want {
			t.Errorf("expand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"${B}", "${", "${A", "${1X}", "${}"} {
		if _, err := expand(in, look); err == nil {
			t.Errorf("expand(%q): no error", in)
		}
	}
}

func FuzzParseFile(f *testing.F) {
	seed, _ := os.ReadFile("testdata/config/project.mcp.json")
	f.Add(seed)
	f.Add([]byte(`{"mcpServers": {"a": {"command": "x", "args": ["${A:-b}"]}}}`))
	f.Add([]byte(`{"mcpServers": {"a": {"type": "http", "url": "http://h", "headers": {"k": "${K}"}}}}`))
	f.Add([]byte(`{"mcpServers": {"a": {"env": {"X": 1}}}, "x": [}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		servers, _, err := parseFile("f.json", data, lookupMap(map[string]string{"A": "a"}))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.json") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, s := range servers {
			if s.Err == nil && checkServerName(s.Name) != nil {
				t.Fatalf("bad name %q accepted", s.Name)
			}
			if s.Err == nil && s.Transport != TransportStdio && s.Transport != TransportHTTP && s.Transport != TransportSSE {
				t.Fatalf("transport %q accepted", s.Transport)
			}
			if s.Err != nil && !strings.HasPrefix(s.Err.Error(), "f.json") {
				t.Fatalf("server error does not name the file: %v", s.Err)
			}
		}
	})
}

// TestLoadOAuthClient: a pre-registered OAuth client is read, its id and
// secret expanded, for mcp login.
func TestLoadOAuthClient(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, ".mcp.json"), `{"mcpServers": {"notes": {"type": "http", "url": "https://notes.example/mcp",
		"oauth": {"clientId": "moteur-cli", "clientSecret": "${NOTES_SECRET}", "callbackPort": 8976}}}}`)
	l := Load(LoadConfig{ProjectRoot: root, LookupEnv: lookupMap(map[string]string{"NOTES_SECRET": "s3cret"})})
	s := serverByName(t, l, "notes")
	if s.Err != nil || s.OAuth != (OAuthClient{ClientID: "moteur-cli", ClientSecret: "s3cret", CallbackPort: 8976}) {
		t.Fatalf("notes: %+v, %v", s.OAuth, s.Err)
	}
}
