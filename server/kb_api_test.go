package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/moteur/moteur/apikey"
	"github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/session"
)

// kbFile is one part of a test upload.
type kbFile struct {
	field, name, content string
}

// kbMultipart encodes files as a multipart/form-data body.
func kbMultipart(t *testing.T, files ...kbFile) (body []byte, contentType string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, f := range files {
		field := f.field
		if field == "" {
			field = "files"
		}
		var w io.Writer
		var err error
		if f.name == "" {
			w, err = mw.CreateFormField(field)
		} else {
			w, err = mw.CreateFormFile(field, f.name)
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(w, f.content); err != nil {
			t.Fatal(err)
		}
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), mw.FormDataContentType()
}

// kbSend sends body with contentType to path with key.
func kbSend(t *testing.T, ts *testServer, method, path, key, contentType string, body io.Reader) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, ts.http.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("X-API-Key", key)
	resp, err := ts.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// kbWithMaxUpload is a second server on ts's data directory, keys and
// agents, whose uploads are limited to max bytes.
func kbWithMaxUpload(t *testing.T, ts *testServer, max int64) *testServer {
	t.Helper()
	cfg := ts.cfg
	cfg.MaxUpload = max
	srv, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	limited := *ts
	limited.Server, limited.http = srv, httptest.NewServer(srv)
	t.Cleanup(func() {
		limited.http.Close()
		_ = srv.Shutdown(context.Background())
	})
	return &limited
}

// kbUpload uploads files to base with key.
func kbUpload(t *testing.T, ts *testServer, base, key string, files ...kbFile) *http.Response {
	t.Helper()
	body, ct := kbMultipart(t, files...)
	return kbSend(t, ts, "POST", "/api/v1/knowledge-bases/"+base+"/documents", key, ct, bytes.NewReader(body))
}

// kbCreate makes a base through the API.
func kbCreate(t *testing.T, ts *testServer, name string) kb.Base {
	t.Helper()
	var b kb.Base
	decodeJSON(t, ts.do("POST", "/api/v1/knowledge-bases", ts.key, map[string]any{"name": name}), http.StatusCreated, &b)
	return b
}

// kbDocuments counts a base's documents in the store, as another process
// would see them.
func kbDocuments(t *testing.T, ts *testServer, base string) int {
	t.Helper()
	st, err := kb.Open(context.Background(), kb.Config{Path: session.DefaultPath(ts.home)})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, total, err := st.Documents(context.Background(), base, "", 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	return total
}

// kbLeftFiles lists the files left under the uploads directory.
func kbLeftFiles(t *testing.T, ts *testServer) []string {
	t.Helper()
	var left []string
	_ = filepath.WalkDir(filepath.Join(ts.home, "uploads"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			left = append(left, p)
		}
		return nil
	})
	return left
}

const kbNotice = "# Préavis\n\nLe délai de préavis d'un salarié démissionnaire est de trois mois. Voir la procédure RH-12.\n"

func TestKBRoutesUploadSearchPassageDelete(t *testing.T) {
	ts := newTestServer(t, testOptions{})
	wantError(t, ts.do("GET", "/api/v1/knowledge-bases", "", nil), http.StatusUnauthorized, CodeUnauthorized)
	wantError(t, kbUpload(t, ts, "docs", "", kbFile{name: "a.md", content: "a"}), http.StatusUnauthorized, CodeUnauthorized)

	b := kbCreate(t, ts, "docs")
	if b.Name != "docs" || !b.Has(kb.CapKeyword) {
		t.Fatalf("created %+v", b)
	}
	wantError(t, ts.do("POST", "/api/v1/knowledge-bases", ts.key, map[string]any{"name": "docs"}), http.StatusConflict, CodeBaseExists)
	var list struct {
		KnowledgeBases []kb.Base `json:"knowledge_bases"`
	}
	decodeJSON(t, ts.do("GET", "/api/v1/knowledge-bases", ts.key, nil), http.StatusOK, &list)
	if len(list.KnowledgeBases) != 1 || list.KnowledgeBases[0].ID != b.ID {
		t.Fatalf("list %+v", list)
	}

	// Three files, one of which the ingestion refuses: the others go in.
	var rep uploadReport
	decodeJSON(t, kbUpload(t, ts, "docs", ts.key,
		kbFile{name: "preavis.md", content: kbNotice},
		kbFile{name: "binary.bin", content: "\x00\x01\x02\xff\x00"},
		kbFile{name: "conges.txt", content: "Les congés payés se posent deux semaines à l'avance."}), http.StatusOK, &rep)
	if rep.Base != "docs" || rep.Added != 2 || rep.Failed != 1 || len(rep.Files) != 3 || rep.Chunks < 2 {
		t.Fatalf("report %+v", rep)
	}
	names := []string{rep.Files[0].Path, rep.Files[1].Path, rep.Files[2].Path}
	if !slices.Equal(names, []string{"preavis.md", "binary.bin", "conges.txt"}) {
		t.Errorf("report's files %q: in upload order, named as sent", names)
	}
	bad := rep.Files[1]
	if bad.Status != kb.StatusFailed || !strings.Contains(bad.Error, "binary") || strings.Contains(bad.Error, ts.home) {
		t.Errorf("refused file %+v: its reason wanted, no server path", bad)
	}
	if left := kbLeftFiles(t, ts); len(left) > 0 {
		t.Errorf("uploaded files left on disk: %v", left)
	}

	// Sent again: unchanged, as `moteur kb add` of the same path.
	decodeJSON(t, kbUpload(t, ts, "docs", ts.key, kbFile{name: "preavis.md", content: kbNotice}), http.StatusOK, &rep)
	if rep.Unchanged != 1 || rep.Files[0].Status != kb.StatusUnchanged {
		t.Errorf("same file again: %+v", rep)
	}

	var docs struct {
		Documents []documentJSON
		Total     int
	}
	decodeJSON(t, ts.do("GET", "/api/v1/knowledge-bases/docs/documents", ts.key, nil), http.StatusOK, &docs)
	if docs.Total != 2 || len(docs.Documents) != 2 {
		t.Fatalf("documents %+v", docs)
	}
	fileNames := []string{docs.Documents[0].FileName, docs.Documents[1].FileName}
	slices.Sort(fileNames)
	if !slices.Equal(fileNames, []string{"conges.txt", "preavis.md"}) {
		t.Errorf("documents' file names %q", fileNames)
	}

	var res kb.Result
	decodeJSON(t, ts.do("GET", "/api/v1/knowledge-bases/docs/search?q=d%C3%A9lai+de+pr%C3%A9avis&limit=3", ts.key, nil), http.StatusOK, &res)
	if len(res.Hits) == 0 || !strings.Contains(res.Hits[0].Text, "trois mois") {
		t.Fatalf("search: %+v", res)
	}
	hit := res.Hits[0]

	// The cited passage, with its document.
	var p passageJSON
	decodeJSON(t, ts.do("GET", "/api/v1/passages/"+hit.Chunk+"?context=2", ts.key, nil), http.StatusOK, &p)
	if p.Passage.ID != hit.Chunk || p.Passage.Text != hit.Text || p.Document.ID != hit.Document || p.Document.FileName != "preavis.md" ||
		p.Document.BaseName != "docs" || p.Before == nil || p.After == nil {
		t.Errorf("passage %+v", p)
	}
	wantError(t, ts.do("GET", "/api/v1/passages/"+hit.Chunk+"?context=99", ts.key, nil), http.StatusBadRequest, CodeBadRequest)

	// A whole document, a page at a time.
	long := ""
	for i := range 6 {
		long += fmt.Sprintf("## Section %d\n\n%s\n\n", i, strings.Repeat(fmt.Sprintf("Paragraphe %d du règlement intérieur. ", i), 30))
	}
	decodeJSON(t, kbUpload(t, ts, "docs", ts.key, kbFile{name: "reglement.md", content: long}), http.StatusOK, &rep)
	if rep.Added != 1 || rep.Chunks < 3 {
		t.Fatalf("long document: %+v", rep)
	}
	var page documentPage
	decodeJSON(t, ts.do("GET", "/api/v1/documents/"+rep.Files[0].Document+"?limit=2", ts.key, nil), http.StatusOK, &page)
	if page.Document.FileName != "reglement.md" || len(page.Passages) != 2 || page.NextOffset == nil || *page.NextOffset != 2 ||
		page.Passages[0].Index != 0 || page.Passages[1].Index != 1 {
		t.Fatalf("first page: %+v", page)
	}
	page = documentPage{}
	decodeJSON(t, ts.do("GET", fmt.Sprintf("/api/v1/documents/%s?offset=2&limit=%d", rep.Files[0].Document, maxDocumentPage), ts.key, nil), http.StatusOK, &page)
	if len(page.Passages) != rep.Chunks-2 || page.NextOffset != nil || page.Passages[0].Index != 2 {
		t.Errorf("last page: %+v", page)
	}
	wantError(t, ts.do("GET", "/api/v1/documents/d-nothing", ts.key, nil), http.StatusNotFound, CodeUnknownDocument)
	wantError(t, ts.do("GET", "/api/v1/documents/"+hit.Document+"?limit=0", ts.key, nil), http.StatusBadRequest, CodeBadRequest)
	wantError(t, ts.do("GET", "/api/v1/passages/d-nothing-0", ts.key, nil), http.StatusNotFound, CodeUnknownPassage)
	wantError(t, ts.do("GET", "/api/v1/knowledge-bases/docs/search?q=+", ts.key, nil), http.StatusBadRequest, CodeEmptyQuery)
	wantError(t, ts.do("GET", "/api/v1/knowledge-bases/docs/search?q=x&limit=ten", ts.key, nil), http.StatusBadRequest, CodeBadRequest)
	wantError(t, ts.do("GET", "/api/v1/knowledge-bases/docs/search?q=x&mode=psychic", ts.key, nil), http.StatusBadRequest, CodeBadRequest)

	// One document out, then the base.
	if resp := ts.do("DELETE", "/api/v1/knowledge-bases/docs/documents/"+hit.Document, ts.key, nil); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE document: %d", resp.StatusCode)
	}
	if n := kbDocuments(t, ts, "docs"); n != 2 {
		t.Errorf("documents after one removal: %d", n)
	}
	wantError(t, ts.do("DELETE", "/api/v1/knowledge-bases/docs/documents/"+hit.Document, ts.key, nil), http.StatusNotFound, CodeUnknownDocument)
	wantError(t, ts.do("GET", "/api/v1/passages/"+hit.Chunk, ts.key, nil), http.StatusNotFound, CodeUnknownPassage)

	if resp := ts.do("DELETE", "/api/v1/knowledge-bases/docs", ts.key, nil); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE base: %d", resp.StatusCode)
	}
	for _, path := range []string{"/api/v1/knowledge-bases/docs", "/api/v1/knowledge-bases/docs/documents", "/api/v1/knowledge-bases/docs/search?q=x"} {
		wantError(t, ts.do("GET", path, ts.key, nil), http.StatusNotFound, CodeUnknownBase)
	}
	wantError(t, ts.do("DELETE", "/api/v1/knowledge-bases/docs", ts.key, nil), http.StatusNotFound, CodeUnknownBase)
	wantError(t, kbUpload(t, ts, "docs", ts.key, kbFile{name: "a.md", content: "a"}), http.StatusNotFound, CodeUnknownBase)
}

func TestKBCreateBadInput(t *testing.T) {
	ts := newTestServer(t, testOptions{})
	for name, c := range map[string]struct {
		body      string
		status    int
		code      string
		inMessage string
	}{
		"malformed":          {`{"name":`, 400, CodeMalformedJSON, "ends early"},
		"unknown field":      {`{"name":"a","vectors":true}`, 400, CodeUnknownField, "vectors"},
		"bad name":           {`{"name":"../etc"}`, 400, CodeInvalidBaseName, "../etc"},
		"no name":            {`{}`, 400, CodeInvalidBaseName, "name"},
		"bad analyzer":       {`{"name":"a","analyzer":"klingon"}`, 400, CodeInvalidField, "klingon"},
		"bad chunking":       {`{"name":"a","chunk_size":5}`, 400, CodeInvalidField, "chunk_size"},
		"too large":          {`{"name":"a","description":"` + strings.Repeat("x", DefaultMaxBody) + `"}`, 413, CodeBodyTooLarge, "limit"},
		"wrong content type": {"name=a", 415, CodeUnsupportedMedia, "application/json"},
	} {
		t.Run(name, func(t *testing.T) {
			ct := "application/json"
			if c.code == CodeUnsupportedMedia {
				ct = "application/x-www-form-urlencoded"
			}
			msg := wantError(t, kbSend(t, ts, "POST", "/api/v1/knowledge-bases", ts.key, ct, strings.NewReader(c.body)), c.status, c.code)
			if !strings.Contains(msg, c.inMessage) {
				t.Errorf("message %q lacks %q", msg, c.inMessage)
			}
		})
	}
	var list struct {
		KnowledgeBases []kb.Base `json:"knowledge_bases"`
	}
	decodeJSON(t, ts.do("GET", "/api/v1/knowledge-bases", ts.key, nil), http.StatusOK, &list)
	if len(list.KnowledgeBases) != 0 {
		t.Errorf("bases made by bad requests: %+v", list.KnowledgeBases)
	}
}

func TestKBUploadBadInput(t *testing.T) {
	ts := kbWithMaxUpload(t, newTestServer(t, testOptions{}), 64<<10)
	kbCreate(t, ts, "docs")

	t.Run("too large, length announced", func(t *testing.T) {
		msg := wantError(t, kbUpload(t, ts, "docs", ts.key, kbFile{name: "big.txt", content: strings.Repeat("mot ", 32<<10)}),
			http.StatusRequestEntityTooLarge, CodeBodyTooLarge)
		if !strings.Contains(msg, "65536") {
			t.Errorf("message %q: the limit wanted", msg)
		}
	})
	t.Run("too large, streamed", func(t *testing.T) {
		// A first small file, then one past the limit: the body's length
		// is not announced, so the limit is met while reading.
		body, ct := kbMultipart(t, kbFile{name: "small.txt", content: "petit fichier"}, kbFile{name: "big.txt", content: strings.Repeat("mot ", 32<<10)})
		wantError(t, kbSend(t, ts, "POST", "/api/v1/knowledge-bases/docs/documents", ts.key, ct, iotest.HalfReader(bytes.NewReader(body))),
			http.StatusRequestEntityTooLarge, CodeBodyTooLarge)
	})
	if n := kbDocuments(t, ts, "docs"); n != 0 {
		t.Errorf("documents after refused uploads: %d (the small file must not go in alone)", n)
	}
	if left := kbLeftFiles(t, ts); len(left) > 0 {
		t.Errorf("files left on disk: %v", left)
	}

	for name, c := range map[string]struct {
		files []kbFile
		code  string
		in    string
	}{
		"another field":  {[]kbFile{{name: "a.md", content: "a"}, {field: "comment", content: "hello"}}, CodeUnknownField, `"comment"`},
		"no filename":    {[]kbFile{{content: "no name"}}, CodeInvalidFileName, "filename"},
		"no file at all": {nil, CodeNoFiles, "files"},
	} {
		t.Run(name, func(t *testing.T) {
			msg := wantError(t, kbUpload(t, ts, "docs", ts.key, c.files...), http.StatusBadRequest, c.code)
			if !strings.Contains(msg, c.in) {
				t.Errorf("message %q lacks %q", msg, c.in)
			}
		})
	}
	wantError(t, kbSend(t, ts, "POST", "/api/v1/knowledge-bases/docs/documents", ts.key, "application/json", strings.NewReader(`{}`)),
		http.StatusUnsupportedMediaType, CodeUnsupportedMedia)
	wantError(t, kbSend(t, ts, "POST", "/api/v1/knowledge-bases/docs/documents", ts.key, "multipart/form-data; boundary=xyz", strings.NewReader("garbage")),
		http.StatusBadRequest, CodeMalformedMultipart)

	// A name sent twice: the first is kept, the second reported.
	var rep uploadReport
	decodeJSON(t, kbUpload(t, ts, "docs", ts.key, kbFile{name: "dir/a.md", content: "premier"}, kbFile{name: `C:\x\a.md`, content: "second"}),
		http.StatusOK, &rep)
	if rep.Added != 1 || rep.Failed != 1 || rep.Files[0].Path != "a.md" || !strings.Contains(rep.Files[1].Error, "twice") {
		t.Errorf("twice: %+v", rep)
	}
}

func TestKBScope(t *testing.T) {
	ts := newTestServer(t, testOptions{})
	kbCreate(t, ts, "docs")
	kbCreate(t, ts, "secret")
	var rep uploadReport
	decodeJSON(t, kbUpload(t, ts, "secret", ts.key, kbFile{name: "plan.md", content: "Le plan secret de rachat."}), http.StatusOK, &rep)
	var res kb.Result
	decodeJSON(t, ts.do("GET", "/api/v1/knowledge-bases/secret/search?q=rachat", ts.key, nil), http.StatusOK, &res)
	if len(res.Hits) == 0 {
		t.Fatal("the full key finds nothing in secret")
	}
	limited := ts.newKey("docs-only", apikey.Scope{Bases: []string{"docs"}})

	var list struct {
		KnowledgeBases []kb.Base `json:"knowledge_bases"`
	}
	decodeJSON(t, ts.do("GET", "/api/v1/knowledge-bases", limited, nil), http.StatusOK, &list)
	if len(list.KnowledgeBases) != 1 || list.KnowledgeBases[0].Name != "docs" {
		t.Errorf("limited key lists %+v", list.KnowledgeBases)
	}
	decodeJSON(t, ts.do("GET", "/api/v1/knowledge-bases/docs", limited, nil), http.StatusOK, nil)
	for _, path := range []string{"/api/v1/knowledge-bases/secret", "/api/v1/knowledge-bases/secret/documents",
		"/api/v1/knowledge-bases/secret/search?q=rachat", "/api/v1/passages/" + res.Hits[0].Chunk, "/api/v1/documents/" + res.Hits[0].Document,
		// A base that does not exist is refused alike: the key learns
		// nothing of names outside its scope.
		"/api/v1/knowledge-bases/nope"} {
		wantError(t, ts.do("GET", path, limited, nil), http.StatusForbidden, CodeForbidden)
	}
	wantError(t, kbUpload(t, ts, "secret", limited, kbFile{name: "x.md", content: "intrus"}), http.StatusForbidden, CodeForbidden)
	wantError(t, ts.do("DELETE", "/api/v1/knowledge-bases/secret/documents/"+res.Hits[0].Document, limited, nil), http.StatusForbidden, CodeForbidden)
	wantError(t, ts.do("DELETE", "/api/v1/knowledge-bases/secret", limited, nil), http.StatusForbidden, CodeForbidden)
	wantError(t, ts.do("POST", "/api/v1/knowledge-bases", limited, map[string]any{"name": "mine"}), http.StatusForbidden, CodeForbidden)
	if n := kbDocuments(t, ts, "secret"); n != 1 {
		t.Errorf("secret's documents after the refused requests: %d", n)
	}
	decodeJSON(t, ts.do("GET", "/api/v1/knowledge-bases", ts.key, nil), http.StatusOK, &list)
	if len(list.KnowledgeBases) != 2 {
		t.Errorf("bases after the refused requests: %+v", list.KnowledgeBases)
	}
	// Within its scope, the limited key works.
	decodeJSON(t, kbUpload(t, ts, "docs", limited, kbFile{name: "ok.md", content: "Autorisé."}), http.StatusOK, &rep)
	if rep.Added != 1 {
		t.Errorf("upload in scope: %+v", rep)
	}
}

func TestKBCopyLimited(t *testing.T) {
	dir := t.TempDir()
	fits, err := copyLimited(filepath.Join(dir, "a"), strings.NewReader("12345"), 5)
	if err != nil || !fits {
		t.Fatalf("5 bytes, limit 5: fits=%v, %v", fits, err)
	}
	fits, err = copyLimited(filepath.Join(dir, "b"), strings.NewReader("123456789"), 5)
	if err != nil || fits {
		t.Fatalf("9 bytes, limit 5: fits=%v, %v", fits, err)
	}
	if st, err := os.Stat(filepath.Join(dir, "b")); err != nil || st.Size() != 6 {
		t.Errorf("over the limit: the copy stops one byte past it: %v, %v", st, err)
	}
	if _, err := copyLimited(filepath.Join(dir, "a"), strings.NewReader("x"), 5); err == nil {
		t.Error("an existing file was overwritten")
	}
}

func FuzzKBUploadName(f *testing.F) {
	for _, s := range []string{"a.md", "", ".", "..", "dir/a.md", `C:\x\y.pdf`, "a\x00b", "\xff", strings.Repeat("a", 300), "../../etc/passwd"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sent string) {
		name, err := uploadName(sent)
		if err != nil {
			return
		}
		if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) || len(name) > maxFileName ||
			filepath.Base(name) != name {
			t.Fatalf("uploadName(%q) = %q: not a plain file name", sent, name)
		}
	})
}
