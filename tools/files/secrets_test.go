package files_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/moteur/moteur/tools"
	"github.com/moteur/moteur/tools/files"
)

// Made-up private keys of the three PEM shapes read_file used to let
// through once it had numbered their lines. bodies are lines of each that
// must never be shown.
var (
	rsaKey = "-----BEGIN RSA PRIVATE KEY-----\n" +
		"MIIEpAIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n" +
		"VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n" +
		"LxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo\n" +
		"-----END RSA PRIVATE KEY-----\n"
	sshKey = "-----BEGIN OPENSSH PRIVATE KEY-----\n" +
		"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n" +
		"QyNTUxOQAAACDvQ2Wd3CyFuPkxhZj7lDkJ5hT0s0rkZf7Yk7ZsYQm8AAAAJhFb1hERW9Y\n" +
		"-----END OPENSSH PRIVATE KEY-----\n"
	pkcs8Key = "-----BEGIN PRIVATE KEY-----\n" +
		"MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n" +
		"MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu\n" +
		"-----END PRIVATE KEY-----\n"
	keys = map[string]string{"rsa": rsaKey, "openssh": sshKey, "pkcs8": pkcs8Key}
)

// keyBody returns the lines of a key between its BEGIN and END lines.
func keyBody(key string) []string {
	lines := strings.Split(strings.TrimSuffix(key, "\n"), "\n")
	return lines[1 : len(lines)-1]
}

func lacksKey(t *testing.T, what, content, key string) {
	t.Helper()
	for _, l := range keyBody(key) {
		if strings.Contains(content, l) || strings.Contains(content, l[:24]) {
			t.Errorf("%s shows key material %q:\n%s", what, l[:24], content)
		}
	}
}

// TestReadFileMasksPrivateKeys: read_file masks the key in the file's text
// before it numbers the lines, whole or from a page that starts inside the
// key, and keeps every line where it is.
func TestReadFileMasksPrivateKeys(t *testing.T) {
	for name, key := range keys {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			e.put("deploy/id", "# deploy key\n"+key+"after = 1\n")
			got := e.ok("read_file", map[string]any{"path": "deploy/id"}).Content
			lacksKey(t, "read_file", got, key)
			n := strings.Count(key, "\n")
			contains(t, got, fmt.Sprintf("lines 1-%d of %d", n+2, n+2), "     1\t# deploy key\n",
				"     2\t[REDACTED:private_key]\n", fmt.Sprintf("%6d\tafter = 1\n", n+2))
			// A page that starts on the key's third line.
			page := e.ok("read_file", map[string]any{"path": "deploy/id", "offset": 4, "limit": 2}).Content
			lacksKey(t, "a page inside the key", page, key)
			contains(t, page, "     4\t[REDACTED:private_key]\n")
		})
	}
}

// TestReadFileMasksKeysInLargeFiles: a file too large to hold is masked as
// it streams, a key block followed from its BEGIN line even when the page
// starts inside it.
func TestReadFileMasksKeysInLargeFiles(t *testing.T) {
	e := newEnv(t)
	var b strings.Builder
	for i := 1; b.Len() < 3<<20; i++ {
		fmt.Fprintf(&b, "filler line %d of a large log\n", i)
	}
	before := strings.Count(b.String(), "\n")
	b.WriteString(rsaKey)
	b.WriteString("OPENAI_API_KEY=sk-proj-Abcdefghijklmnopqrstuvwx0123456789\ntail\n")
	e.put("big.log", b.String())
	for _, offset := range []int{before - 1, before + 2} {
		got := e.ok("read_file", map[string]any{"path": "big.log", "offset": offset, "limit": 10}).Content
		lacksKey(t, fmt.Sprintf("page at %d", offset), got, rsaKey)
		lacks(t, got, "sk-proj-Abcdefghijklmnopqrstuvwx0123456789")
		contains(t, got, fmt.Sprintf("%6d\t[REDACTED:private_key]\n", before+3), "OPENAI_API_KEY=[REDACTED:")
	}
}

// TestGrepMasksPrivateKeys: grep searches the masked text, so a pattern
// that matches only inside a key finds nothing, and a line of a file
// holding a key shows none of it.
func TestGrepMasksPrivateKeys(t *testing.T) {
	for name, key := range keys {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			e.put("deploy/id", "# deploy key\n"+key+"after = 1\n")
			body := keyBody(key)[1]
			for _, pattern := range []string{body[:20], "^" + body[:3], "."} {
				got := e.ok("grep", map[string]any{"pattern": pattern}).Content
				lacksKey(t, "grep "+pattern, got, key)
			}
			// The search did run: the file's other lines are found, and
			// the key's lines are reported masked, at their numbers.
			contains(t, e.ok("grep", map[string]any{"pattern": "deploy|after"}).Content, "deploy/id:1:# deploy key", "after = 1")
			contains(t, e.ok("grep", map[string]any{"pattern": "."}).Content, "deploy/id:3:[REDACTED:private_key]")
			contains(t, e.ok("grep", map[string]any{"pattern": body[:20]}).Content, "No matches")
		})
	}
}

// TestListFilesShowsNoContent: list_files and glob name files, never show
// what they hold.
func TestListFilesShowsNoContent(t *testing.T) {
	e := newEnv(t)
	for name, key := range keys {
		e.put("keys/"+name+".pem", key)
	}
	list := e.ok("list_files", map[string]any{"path": "keys"}).Content
	contains(t, list, "rsa.pem", "openssh.pem", "pkcs8.pem")
	glob := e.ok("glob", map[string]any{"pattern": "keys/*"}).Content
	contains(t, glob, "keys/rsa.pem")
	for _, key := range keys {
		lacksKey(t, "list_files", list, key)
		lacksKey(t, "glob", glob, key)
	}
}

// markedFiles are files whose text carries a marking however it is
// written, as the attack on read_file wrote them.
var markedFiles = map[string]string{
	"split":       "Note\nDIFFUSION\nRESTREINTE\nLe plan de reprise.\n",
	"nato":        "NATO\nSECRET\n",
	"indented":    "DIFFUSION\n    RESTREINTE\n",
	"dr header":   "DR\n\nCompte rendu de la réunion du 12 mars.\n",
	"zero width":  "Note DIFF\u200bUSION RESTREINTE\n",
	"soft hyphen": "SEC\u00adRET DÉFENSE\n",
	"cyrillic":    "DIFFUSION RЕSTRЕINTЕ\n",
	"fullwidth":   "ＳＥＣＲＥＴ ＤＥＦＥＮＳＥ\n",
	"spaced":      "D I F F U S I O N   R E S T R E I N T E\n",
	"entity":      "<p>DIFFUSION&nbsp;RESTREINTE</p>\n",
	"markdown":    "**DIFFUSION** **RESTREINTE**\n",
	"tlp":         "TLP:\nRED\n",
	"tlp dash":    "Rapport TLP-RED du CERT\n",
	"otan":        "NATO/OTAN SECRET\n",
}

// TestReadFileClassifiesByText: a file whose text carries a marking is
// classified when read_file shows any page of it, the page far from the
// marking included; the line numbers read_file adds hide nothing.
func TestReadFileClassifiesByText(t *testing.T) {
	for name, text := range markedFiles {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			e.put("doc.md", text+numbered(1, 200))
			res := e.ok("read_file", map[string]any{"path": "doc.md"})
			if res.Classified == "" {
				t.Errorf("read_file of %q: not classified", text)
			}
			far := e.ok("read_file", map[string]any{"path": "doc.md", "offset": 150, "limit": 5})
			if far.Classified == "" {
				t.Errorf("a page far from the marking of %q: not classified", text)
			}
			contains(t, far.Content, "lines 150-154", "\tline 14") // the page was read
			if g := e.ok("grep", map[string]any{"pattern": "line 17"}); g.Classified == "" {
				t.Errorf("grep in the file marked %q: not classified", text)
			}
		})
	}
}

// TestReadFileClassifiesLargeFiles: a file too large to hold is classified
// by its first MiB and by the page shown.
func TestReadFileClassifiesLargeFiles(t *testing.T) {
	e := newEnv(t)
	filler := numbered(1, 300000) // ~3.3 MB
	e.put("head.log", "DIFFUSION\n     RESTREINTE\n"+filler)
	if res := e.ok("read_file", map[string]any{"path": "head.log", "offset": 200000, "limit": 3}); res.Classified == "" {
		t.Error("a large file stamped at its head: not classified")
	}
	e.put("page.log", filler+"NATO\nSECRET\n"+filler)
	if res := e.ok("read_file", map[string]any{"path": "page.log", "offset": 300000, "limit": 4}); res.Classified == "" {
		t.Error("a large file's page holding a split marking: not classified")
	}
	res := e.ok("read_file", map[string]any{"path": "page.log", "offset": 10, "limit": 4})
	contains(t, res.Content, "line 10")
	if res.Classified != "" {
		t.Errorf("a page of a large file far past its head and before the marking: classified %q", res.Classified)
	}
}

// TestReadFileDoesNotClassifyOrdinaryText: the negative controls are read
// (their text comes back) and not classified.
func TestReadFileDoesNotClassifyOrdinaryText(t *testing.T) {
	e := newEnv(t)
	for i, text := range []string{
		"le secret professionnel s'applique\n", "Le protocole tlp définit des couleurs.\n",
		"La DR Nord a validé le budget.\n", "Это секретный документ\n", "SECRET_KEY=changeme\n",
		"il y a un problème\n", "x = a * b\n",
	} {
		name := fmt.Sprintf("f%d.txt", i)
		e.put(name, text)
		res := e.ok("read_file", map[string]any{"path": name})
		contains(t, res.Content, strings.TrimSuffix(text, "\n"))
		if res.Classified != "" {
			t.Errorf("read_file of %q: classified %q", text, res.Classified)
		}
	}
}

// TestConfigMarkings: the configuration's markings classify a file's text.
func TestConfigMarkings(t *testing.T) {
	root := t.TempDir()
	s, err := files.New(files.Config{Root: root, Markings: func(text string) (string, bool) {
		if strings.Contains(text, "PROJET ALPHA") {
			return "PROJET ALPHA", true
		}
		return "", false
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	r := tools.NewRegistry(tools.Config{MaxOutput: 1 << 20})
	for _, tool := range s.Tools() {
		if err := r.Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	e := &env{t: t, root: root, set: s, reg: r}
	if err := os.WriteFile(e.path("a.md"), []byte("le PROJET ALPHA\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := e.ok("read_file", map[string]any{"path": "a.md"}); res.Classified != "PROJET ALPHA" {
		t.Errorf("Classified = %q, want the configuration's marking", res.Classified)
	}
}
