package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/provider/openai"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/provider/scripted"
	"github.com/moteur/moteur/routing"
	sessionstore "github.com/moteur/moteur/session"
	"github.com/moteur/moteur/tools"
	"github.com/moteur/moteur/tools/files"
)

// Made-up private keys, one per PEM shape. Each body line is key material
// that must appear in no request, no stored event and no audit record.
var trustKeys = map[string]string{
	"deploy/id_rsa": "-----BEGIN RSA PRIVATE KEY-----\n" +
		"MIIEpAIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n" +
		"VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n" +
		"-----END RSA PRIVATE KEY-----\n",
	"deploy/id_ed25519": "-----BEGIN OPENSSH PRIVATE KEY-----\n" +
		"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n" +
		"QyNTUxOQAAACDvQ2Wd3CyFuPkxhZj7lDkJ5hT0s0rkZf7Yk7ZsYQm8AAAAJhFb1hERW9Y\n" +
		"-----END OPENSSH PRIVATE KEY-----\n",
	"deploy/key.pem": "-----BEGIN PRIVATE KEY-----\n" +
		"MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n" +
		"MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu\n" +
		"-----END PRIVATE KEY-----\n",
}

// keyMaterial is every body line of trustKeys, and the first 24 bytes of
// each (what a cut line would keep).
func keyMaterial() []string {
	var out []string
	for _, k := range trustKeys {
		lines := strings.Split(strings.TrimSuffix(k, "\n"), "\n")
		for _, l := range lines[1 : len(lines)-1] {
			out = append(out, l, l[:24])
		}
	}
	return out
}

// projectTools registers the file tools on root.
func projectTools(t *testing.T, root string) *tools.Registry {
	t.Helper()
	fs, err := files.New(files.Config{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fs.Close() })
	reg := tools.NewRegistry(tools.Config{MaxOutput: 1 << 20})
	for _, tl := range fs.Tools() {
		if err := reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

func putFile(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestPrivateKeysInProjectFilesNeverLeaveTheMachine drives the whole path
// with real parts: a model on loopback speaking the OpenAI protocol asks
// for every key file through read_file (one page starting inside a key),
// grep and list_files; the engine runs the real file tools and records to
// a real audit log and SQLite session store. Neither a request the server
// received nor a byte of the database or the log holds key material, and
// the request after the calls holds the tool results, masked, which
// proves the files were read.
func TestPrivateKeysInProjectFilesNeverLeaveTheMachine(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	for rel, key := range trustKeys {
		putFile(t, root, rel, "# "+rel+"\n"+key+"# end\n")
	}
	srv := openaitest.NewServer(t,
		openaitest.Calls(
			"c1", "read_file", `{"path":"deploy/id_rsa"}`,
			"c2", "read_file", `{"path":"deploy/id_ed25519","offset":3}`,
			"c3", "read_file", `{"path":"deploy/key.pem"}`,
			"c4", "grep", `{"pattern":"[A-Za-z0-9+/]{40}","path":"deploy"}`,
			"c5", "grep", `{"pattern":".","path":"deploy"}`,
			"c6", "list_files", `{"path":"deploy"}`,
		),
		openaitest.Answer("Les clés sont masquées."))
	client, err := openai.New(openai.Config{BaseURL: srv.BaseURL(), Model: "m", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	store, err := sessionstore.OpenSQLite(ctx, sessionstore.SQLiteConfig{Path: sessionstore.DefaultPath(home)})
	if err != nil {
		t.Fatal(err)
	}
	audit, err := event.OpenAudit(event.AuditConfig{Path: filepath.Join(home, "audit", "s1.log"),
		Key: bytes.Repeat([]byte{7}, event.AuditKeySize), SessionID: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(Deps{Provider: client, Tools: projectTools(t, root), ProjectRoot: root,
		Sinks: []event.Sink{audit, sessionstore.Sink{Store: store}}, StallTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ch := e.Subscribe()
	go func() {
		for range ch {
		}
	}()
	if err := e.Submit(ctx, "s1", "Montre-moi les clés de déploiement."); err != nil {
		t.Fatal(err)
	}
	stored, err := store.Load(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if err := audit.Close(); err != nil {
		t.Fatal(err)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}

	// What the model received.
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the server received %d requests, want 2", len(reqs))
	}
	results := map[string]string{}
	for _, m := range reqs[1].Messages {
		if m.Role == llm.RoleTool {
			results[m.ToolCallID] = m.Content
		}
	}
	for id, want := range map[string][]string{
		"c1": {"deploy/id_rsa: lines 1-6 of 6", "     1\t# deploy/id_rsa\n", "     2\t[REDACTED:private_key]\n", "     6\t# end"},
		"c2": {"deploy/id_ed25519: lines 3-6 of 6", "     3\t[REDACTED:private_key]\n"},
		"c3": {"deploy/key.pem: lines 1-6", "     3\t[REDACTED:private_key]\n"},
		"c4": {"No matches"},
		"c5": {"deploy/id_rsa:3:[REDACTED:private_key]", "deploy/key.pem:1:# deploy/key.pem"},
		"c6": {"id_rsa", "id_ed25519", "key.pem"},
	} {
		for _, w := range want {
			if !strings.Contains(results[id], w) {
				t.Errorf("tool result %s sent to the model lacks %q:\n%s", id, w, results[id])
			}
		}
	}
	for i, r := range reqs {
		for _, k := range keyMaterial() {
			if bytes.Contains(r.Body, []byte(k)) {
				t.Errorf("request %d sent key material %q", i+1, k)
			}
		}
	}

	// What was stored: the events as loaded back, and every byte of the
	// database and the audit log (the WAL included).
	var toolResults int
	for _, ev := range stored {
		if p, ok := ev.Payload.(event.ToolResultPayload); ok {
			toolResults++
			if p.Name == "read_file" && !strings.Contains(p.Content, "[REDACTED:private_key]") {
				t.Errorf("stored read_file result lacks the marker: %q", p.Content)
			}
		}
	}
	if toolResults != 6 {
		t.Errorf("%d tool results stored, want 6", toolResults)
	}
	var sawMarker bool
	err = filepath.Walk(home, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sawMarker = sawMarker || bytes.Contains(data, []byte("REDACTED:private_key"))
		for _, k := range keyMaterial() {
			if bytes.Contains(data, []byte(k)) {
				t.Errorf("%s holds key material %q", p, k)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !sawMarker {
		t.Error("no stored file holds the masked results: the check above read nothing")
	}
}

// evasions are markings written to slip past a matcher, one per trick the
// attack used; each must be treated exactly like the plain marking.
var evasions = map[string]string{
	"split":         "Note\nDIFFUSION\nRESTREINTE\nle plan",
	"nato split":    "NATO\nSECRET",
	"indented":      "DIFFUSION\n    RESTREINTE",
	"dr header":     "DR\nCompte rendu de la réunion",
	"zero width":    "Note DIFF\u200bUSION RESTREINTE",
	"soft hyphen":   "SEC\u00adRET DÉFENSE",
	"word joiner":   "DIFFUSION RES\u2060TREINTE",
	"cyrillic":      "DIFFUSION RЕSTRЕINTЕ",
	"greek":         "ΝΑΤΟ SECRET",
	"fullwidth":     "ＳＥＣＲＥＴ ＤＥＦＥＮＳＥ",
	"spaced":        "D I F F U S I O N   R E S T R E I N T E",
	"spaced banner": "Rapport\nS E C R E T\nsuite",
	"nbsp entity":   "DIFFUSION&nbsp;RESTREINTE",
	"markdown":      "**DIFFUSION** **RESTREINTE**",
	"tlp space":     "Rapport TLP RED du CERT",
	"tlp dash":      "Rapport TLP-RED du CERT",
	"tlp split":     "TLP:\nRED",
	"secret otan":   "SECRET OTAN",
	"nato/otan":     "NATO/OTAN SECRET",
}

// ordinary texts look like markings to a careless matcher; none is one.
var ordinary = map[string]string{
	"secret in prose": "le secret professionnel s'applique",
	"tlp in prose":    "Le protocole tlp définit quatre couleurs.",
	"dr in prose":     "La DR Nord a validé le budget.",
	"russian":         "Это секретный документ для отдела",
	"spaced prose":    "il y a un problème",
}

func remoteOnLoopback(t *testing.T, replies ...http.HandlerFunc) (*openaitest.Server, *openai.Client) {
	t.Helper()
	srv := openaitest.NewServer(t, replies...)
	client, err := openai.New(openai.Config{BaseURL: srv.BaseURL(), Model: "m", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	return srv, client
}

// TestDisguisedMarkingsAreRefusedOnEveryChannel: each evasion, in a
// prompt, in a file read with read_file and in a command's output, stops
// the session's content from reaching the remote model, as the plain
// marking does; the ordinary texts go through.
func TestDisguisedMarkingsAreRefusedOnEveryChannel(t *testing.T) {
	channels := []struct {
		name string
		// run submits text through the channel to a remote-only engine and
		// returns Submit's error, the number of requests the remote model
		// received, and how many it must receive when text is ordinary.
		run func(t *testing.T, text string) (err error, requests, ordinary int)
	}{
		{"prompt", func(t *testing.T, text string) (error, int, int) {
			srv, client := remoteOnLoopback(t, openaitest.Answer("ok"))
			e := newEngine(t, Deps{Provider: client})
			err := e.Submit(context.Background(), "s1", text)
			return err, len(srv.Requests()), 1
		}},
		{"read_file", func(t *testing.T, text string) (error, int, int) {
			root := t.TempDir()
			putFile(t, root, "notes/doc.md", text+"\n")
			srv, client := remoteOnLoopback(t,
				openaitest.Calls("c1", "read_file", `{"path":"notes/doc.md"}`), openaitest.Answer("ok"))
			e := newEngine(t, Deps{Provider: client, Tools: projectTools(t, root)})
			err := e.Submit(context.Background(), "s1", "Lis notes/doc.md")
			return err, len(srv.Requests()), 2
		}},
		{"shell output", func(t *testing.T, text string) (error, int, int) {
			shell := &fakeTool{name: "shell_exec", run: func(context.Context, json.RawMessage) (tools.Result, error) {
				return tools.Result{Content: "$ cat notes/doc.md\n" + text + "\n[exit 0]"}, nil
			}}
			reg := tools.NewRegistry(tools.Config{})
			if err := reg.Register(shell); err != nil {
				t.Fatal(err)
			}
			srv, client := remoteOnLoopback(t,
				openaitest.Calls("c1", "shell_exec", `{"command":"cat notes/doc.md"}`), openaitest.Answer("ok"))
			e := newEngine(t, Deps{Provider: client, Tools: reg})
			err := e.Submit(context.Background(), "s1", "Affiche notes/doc.md")
			return err, len(srv.Requests()), 2
		}},
	}
	for _, ch := range channels {
		t.Run(ch.name, func(t *testing.T) {
			for name, text := range evasions {
				err, n, pass := ch.run(t, text)
				if !errors.Is(err, policy.ErrRefused) {
					t.Errorf("%s: Submit = %v, want a refusal", name, err)
				}
				// The model received what came before the marking, never
				// the marking: a prompt is refused before the first
				// request, a tool's result before the one after it.
				if n != pass-1 {
					t.Errorf("%s: the remote model received %d requests, want %d", name, n, pass-1)
				}
			}
			for name, text := range ordinary {
				err, n, pass := ch.run(t, text)
				if err != nil || n != pass {
					t.Errorf("ordinary %s: Submit = %v after %d requests, want an answer after %d", name, err, n, pass)
				}
			}
		})
	}
}

// TestDisguisedMarkingInAFileRoutesToTheLocalProvider: with a local
// provider, a file whose text carries a disguised marking makes the
// session sensitive, and the rest of the session goes to the local model.
func TestDisguisedMarkingInAFileRoutesToTheLocalProvider(t *testing.T) {
	root := t.TempDir()
	putFile(t, root, "notes/doc.md", "     1\tNATO\nSECRET\n"+strings.Repeat("texte\n", 300))
	srv, client := remoteOnLoopback(t, openaitest.Calls("c1", "read_file", `{"path":"notes/doc.md","offset":200,"limit":5}`))
	local := scripted.New(scripted.Config{Name: "local", Steps: []scripted.Step{{Text: "vu"}}})
	router, err := routing.New(routing.Config{Candidates: []routing.Candidate{
		{Provider: client, Endpoint: srv.BaseURL()},
		{Provider: local, Endpoint: "http://127.0.0.1:11434/v1", Local: true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	sink := &memSink{}
	e := newEngine(t, Deps{Provider: client, Router: router, Tools: projectTools(t, root), Sinks: []event.Sink{sink}})
	if err := e.Submit(context.Background(), "s1", "Lis la page 200 de notes/doc.md"); err != nil {
		t.Fatal(err)
	}
	if n, m := len(srv.Requests()), len(local.Requests()); n != 1 || m != 1 {
		t.Errorf("remote got %d requests, local %d; want 1 and 1", n, m)
	}
	c := last[event.SessionClassifiedPayload](t, sink.all(), event.SessionClassified)
	if c.Source != "tool read_file" || !strings.Contains(c.Marking, "NATO SECRET") {
		t.Errorf("SessionClassified = %+v", c)
	}
}

func newEngine(t *testing.T, d Deps) *Engine {
	t.Helper()
	if d.Tools == nil {
		d.Tools = tools.NewRegistry(tools.Config{})
	}
	if d.StallTimeout == 0 {
		d.StallTimeout = 5 * time.Second
	}
	e, err := New(d)
	if err != nil {
		t.Fatal(err)
	}
	ch := e.Subscribe()
	go func() {
		for range ch {
		}
	}()
	return e
}

// TestEscapedSecretsInToolArgumentsAreStoredMasked: a model that spells a
// key with \u escapes in a tool call's arguments (part of it, all of it,
// inside a JSON document it passes as a string) gets it stored masked: no
// sink receives the key, escaped or decoded.
func TestEscapedSecretsInToolArgumentsAreStoredMasked(t *testing.T) {
	const key = "sk-proj-Abcdefghijklmnopqrstuvwx0123456789"
	var all strings.Builder
	for _, r := range key {
		all.WriteString(`\u00` + strings.ToLower(string("0123456789abcdef"[r>>4])+string("0123456789abcdef"[r&15])))
	}
	echo := &fakeTool{name: "echo", run: func(context.Context, json.RawMessage) (tools.Result, error) {
		return tools.Result{Content: "ok"}, nil
	}}
	for name, args := range map[string]string{
		"one escape":  `{"q":"sk-proj-\u0041bcdefghijklmnopqrstuvwx0123456789"}`,
		"all escaped": `{"q":"` + all.String() + `"}`,
		"nested":      `{"q":"{\"api_key\":\"sk-proj-\\u0041bcdefghijklmnopqrstuvwx0123456789\"}"}`,
	} {
		t.Run(name, func(t *testing.T) {
			steps := []scripted.Step{{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "echo", Arguments: args}}}, {Text: "fini"}}
			h := newHarness(t, steps, []tools.Tool{echo}, nil)
			if err := h.submit("vas-y"); err != nil {
				t.Fatal(err)
			}
			var stored string
			for _, e := range h.sink.all() {
				if p, ok := e.Payload.(event.AssistantMessagePayload); ok && len(p.ToolCalls) > 0 {
					stored = p.ToolCalls[0].Arguments
				}
			}
			if !strings.Contains(stored, "[REDACTED:") || !json.Valid([]byte(stored)) {
				t.Fatalf("stored arguments %q: want valid JSON with a marker", stored)
			}
			for _, e := range h.sink.all() {
				b, _ := json.Marshal(e)
				for _, leak := range []string{key[9:], `\u0041bcdefghij`, `bcdefghijklmnopqrstuvwx0123456789`} {
					if strings.Contains(string(b), leak) {
						t.Errorf("the sink received %q in %s: %s", leak, e.Type, b)
					}
				}
			}
		})
	}
}
