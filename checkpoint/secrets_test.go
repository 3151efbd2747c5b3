package checkpoint_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moteur/moteur/atrest"
	"github.com/moteur/moteur/checkpoint"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/tools"
	"github.com/moteur/moteur/tools/files"
)

// randomOf returns n characters drawn from alphabet: the secrets are made
// afresh by each run, so that no secret-looking literal sits in the code.
func randomOf(t *testing.T, alphabet string, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

const (
	upperDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	base62      = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
)

// secretFile is a project file holding secrets, and how the agent changes
// it.
type secretFile struct {
	path    string
	content string
	secrets []string
	// edit, when set, is the text edit_file replaces; otherwise the file
	// is overwritten with write_file.
	edit string
}

func secretFiles(t *testing.T) []secretFile {
	t.Helper()
	awsID := "AKIA" + randomOf(t, upperDigits, 16)
	awsSecret := randomOf(t, base62+"/+", 40)
	ghToken := "ghp_" + randomOf(t, base62, 36)
	openAI := "sk-proj-" + randomOf(t, base62, 48)
	pk, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(pk)
	if err != nil {
		t.Fatal(err)
	}
	pemKey := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	pemBody := strings.Split(pemKey, "\n")[1] // the first line of base64
	return []secretFile{
		{path: "config/aws_credentials", secrets: []string{awsID, awsSecret},
			content: "[default]\naws_access_key_id = " + awsID + "\naws_secret_access_key = " + awsSecret + "\nregion = eu-west-3\n"},
		{path: "scripts/release.sh", secrets: []string{ghToken}, edit: "export GITHUB_TOKEN=" + ghToken,
			content: "#!/bin/sh\nset -eu\nexport GITHUB_TOKEN=" + ghToken + "\ngh release create \"$1\"\n"},
		{path: "app/settings.py", secrets: []string{openAI}, edit: `OPENAI_API_KEY = "` + openAI + `"`,
			content: "DEBUG = False\nOPENAI_API_KEY = \"" + openAI + "\"\nMODEL = \"gpt-4o\"\n"},
		{path: "deploy/server.key", secrets: []string{pemBody, "-----BEGIN PRIVATE KEY-----"}, content: pemKey},
		// Low entropy: the kind of file a plain hash as a blob name would
		// let anyone confirm by guessing.
		{path: ".env", secrets: []string{"PASSWORD=1234"},
			content: "DB_HOST=localhost\nDB_USER=admin\nPASSWORD=1234\n"},
	}
}

// TestCheckpointsKeepNoSecretInClear overwrites and edits files holding
// each kind of secret through the real file tools, the Store as their
// Blobs, then scans every byte under the checkpoints directory, names
// included.
func TestCheckpointsKeepNoSecretInClear(t *testing.T) {
	ctx := t.Context()
	root := t.TempDir()
	dir := filepath.Join(t.TempDir(), "checkpoints")
	key, err := atrest.LoadOrCreate(filepath.Join(t.TempDir(), atrest.FileName))
	if err != nil {
		t.Fatal(err)
	}
	store, err := checkpoint.Open(checkpoint.Config{Dir: dir, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	set, err := files.New(files.Config{Root: root, Blobs: store})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = set.Close() })
	reg := tools.NewRegistry(tools.Config{})
	for _, tool := range set.Tools() {
		if err := reg.Register(tool); err != nil {
			t.Fatal(err)
		}
	}

	sfs := secretFiles(t)
	for _, f := range sfs {
		p := filepath.Join(root, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f.content), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	// The session: one point, then a call per file.
	var st checkpoint.State
	seq := uint64(1)
	st.Apply(event.Event{Seq: seq, SessionID: "s", Type: event.UserMessage, Payload: event.UserMessagePayload{Text: "rotate the secrets"}})
	for i, f := range sfs {
		name, args := files.WriteFileName, map[string]any{"path": f.path, "content": "# moved to the vault: " + f.path + "\n"}
		if f.edit != "" {
			name = files.EditFileName
			args = map[string]any{"path": f.path, "edits": []map[string]string{{"old_string": f.edit, "new_string": "# moved to the vault"}}}
		}
		b, _ := json.Marshal(args)
		call := llm.ToolCall{ID: "c" + string(rune('0'+i)), Name: name, Arguments: string(b)}
		res := reg.Execute(ctx, call)
		if res.IsError || len(res.Changes) != 1 || res.Changes[0].Before != checkpoint.HashOf([]byte(f.content)) {
			t.Fatalf("%s %s: %s, changes %+v", name, f.path, res.Content, res.Changes)
		}
		seq++
		st.Apply(event.Event{Seq: seq, SessionID: "s", Type: event.ToolResult,
			Payload: event.ToolResultPayload{CallID: call.ID, Name: name, Changes: res.Changes}})
	}

	// The checkpoints were written: one blob per changed file.
	blobs := scan(t, dir)
	if len(blobs) != len(sfs) {
		t.Fatalf("%d blob files under %s, want %d (one per changed file)", len(blobs), dir, len(sfs))
	}
	noSecrets(t, blobs, sfs)

	// And a rewind restores each file byte for byte from them.
	plan, err := st.Plan(root, 1)
	if err != nil || len(plan.Files) != len(sfs) {
		t.Fatalf("plan: %+v, %v", plan, err)
	}
	for _, r := range checkpoint.Apply(ctx, root, store, plan, plan, nil) {
		if r.Status != checkpoint.RewoundOK {
			t.Fatalf("rewind of %s: %s %s", r.Path, r.Status, r.Error)
		}
	}
	for _, f := range sfs {
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.path)))
		if err != nil || string(got) != f.content {
			t.Fatalf("%s after the rewind: %q, %v; want its original bytes", f.path, got, err)
		}
	}
	// What the rewind saved (the agent's versions) is sealed too, and the
	// originals still appear nowhere.
	after := scan(t, dir)
	if len(after) != 2*len(sfs) {
		t.Fatalf("%d blob files after the rewind, want %d", len(after), 2*len(sfs))
	}
	noSecrets(t, after, sfs)
}

// scan returns every file under dir, by path relative to dir.
func scan(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// noSecrets fails if any secret, any 16-byte run of an original file, or
// the SHA-256 of an original appears in the blobs' names or bytes.
func noSecrets(t *testing.T, blobs map[string][]byte, sfs []secretFile) {
	t.Helper()
	var all bytes.Buffer
	for name, b := range blobs {
		all.WriteString(name)
		all.WriteByte(0)
		all.Write(b)
		all.WriteByte(0)
	}
	names := strings.Join(mapKeys(blobs), "\n")
	for _, f := range sfs {
		for _, s := range f.secrets {
			if bytes.Contains(all.Bytes(), []byte(s)) {
				t.Errorf("%s: secret %q found under the checkpoints", f.path, s)
			}
		}
		c := []byte(f.content)
		for i := 0; i+16 <= len(c); i++ {
			if bytes.Contains(all.Bytes(), c[i:i+16]) {
				t.Errorf("%s: its bytes %q found under the checkpoints", f.path, c[i:i+16])
				break
			}
		}
		if h := checkpoint.HashOf(c); strings.Contains(strings.ReplaceAll(names, string(filepath.Separator), ""), h[2:]) {
			t.Errorf("%s: a blob file is named by its SHA-256, which confirms a guess of it", f.path)
		}
	}
}

func mapKeys(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
