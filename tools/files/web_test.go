package files_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/moteur/moteur/redact/redacttest"
	"github.com/moteur/moteur/tools"
	"github.com/moteur/moteur/tools/files"
)

// webSnaps is a files.WebReader over a map, as app adapts the session's
// web snapshots: a missing one wraps fs.ErrNotExist.
type webSnaps struct {
	mu    sync.Mutex
	texts map[string]string
	fail  error // returned for every path when set
	reads int
}

func (w *webSnaps) ReadWeb(_ context.Context, path string) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.reads++
	if w.fail != nil {
		return "", w.fail
	}
	text, ok := w.texts[path]
	if !ok {
		return "", fmt.Errorf("web snapshot %s: no such web snapshot: %w", path, fs.ErrNotExist)
	}
	return text, nil
}

// newWebEnv is newEnv with Config.Web set to web (nil: none).
func newWebEnv(t *testing.T, web files.WebReader) *env {
	t.Helper()
	root := t.TempDir()
	s, err := files.New(files.Config{Root: root, Web: web})
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
	return &env{t: t, root: root, set: s, reg: r}
}

const snapPath = "web://example.com/0a1b2c3d4e5f.md"

var webHeader = regexp.MustCompile(`^` + regexp.QuoteMeta(snapPath) +
	`: lines (\d+)-(\d+) of (\d+)(?: \(line \d+ from line_offset (\d+)\))?(?:; next_offset (\d+)(?:; line_offset (\d+)| \(max_bytes reached\))?|; end of file)$`)

// webPage is one page of read_file on a snapshot, parsed.
type webPage struct {
	first, last, total int
	from               int // line_offset the page starts at
	next, nextChar     int // where it says to go on; next 0 at the end
	lines              []string
	bodyBytes          int
	header, content    string
	prefixNums         []int
}

func parseWebPage(t *testing.T, content string) webPage {
	t.Helper()
	header, body, _ := strings.Cut(content, "\n")
	m := webHeader.FindStringSubmatch(header)
	if m == nil {
		t.Fatalf("header %q does not have the expected form", header)
	}
	num := func(s string) int {
		if s == "" {
			return 0
		}
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	p := webPage{first: num(m[1]), last: num(m[2]), total: num(m[3]), from: num(m[4]), next: num(m[5]), nextChar: num(m[6]),
		bodyBytes: len(body), header: header, content: content}
	for _, l := range strings.SplitAfter(body, "\n") {
		if l == "" {
			continue
		}
		if !strings.HasSuffix(l, "\n") {
			t.Fatalf("body line %q does not end with a newline", l)
		}
		n, text, ok := strings.Cut(strings.TrimSuffix(l, "\n"), "\t")
		if !ok {
			t.Fatalf("body line %q has no number prefix", l)
		}
		p.prefixNums = append(p.prefixNums, num(strings.TrimSpace(n)))
		p.lines = append(p.lines, text)
	}
	return p
}

// readAll reads the snapshot page by page as the header says, checking
// each page, and returns the text put back together and the pages.
func readAll(t *testing.T, e *env, extra map[string]any) (string, []webPage) {
	t.Helper()
	var b strings.Builder
	var pages []webPage
	offset, lineOffset := 1, 0
	for range 1000 {
		args := map[string]any{"path": snapPath, "offset": offset}
		if lineOffset > 0 {
			args["line_offset"] = lineOffset
		}
		for k, v := range extra {
			args[k] = v
		}
		p := parseWebPage(t, e.ok("read_file", args).Content)
		pages = append(pages, p)
		if p.bodyBytes > files.WebPageBytes {
			t.Errorf("page at offset %d, line_offset %d: %d bytes, more than %d", offset, lineOffset, p.bodyBytes, files.WebPageBytes)
		}
		if p.first != offset || p.from != lineOffset || len(p.lines) == 0 || p.prefixNums[0] != offset {
			t.Fatalf("page asked at offset %d, line_offset %d has header %q", offset, lineOffset, p.header)
		}
		for i, l := range p.lines {
			if (i > 0 || lineOffset == 0) && offset+i > 1 {
				b.WriteByte('\n')
			}
			b.WriteString(l)
		}
		if p.next == 0 {
			return b.String(), pages
		}
		offset, lineOffset = p.next, p.nextChar
	}
	t.Fatal("read_file never reached the end of the snapshot")
	return "", nil
}

func TestReadWebPagesToTheEnd(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&b, "line %d of a page read by web_fetch, with some words.\n", i)
	}
	text := b.String()
	e := newWebEnv(t, &webSnaps{texts: map[string]string{snapPath: text}})
	got, pages := readAll(t, e, nil)
	if got != strings.TrimSuffix(text, "\n") {
		t.Errorf("the pages put together differ from the snapshot (%d bytes read, %d in the snapshot)", len(got), len(text))
	}
	if len(pages) < 3 {
		t.Fatalf("%d bytes read in %d pages: not paged", len(text), len(pages))
	}
	p := pages[0]
	if p.total != 3000 || !strings.HasSuffix(p.header, fmt.Sprintf("; next_offset %d (max_bytes reached)", p.last+1)) {
		t.Errorf("first page header %q", p.header)
	}
	if !strings.HasSuffix(pages[len(pages)-1].header, "; end of file") {
		t.Errorf("last page header %q", pages[len(pages)-1].header)
	}
	// Whole lines only: no page of short lines says line_offset.
	for _, p := range pages {
		if p.nextChar != 0 {
			t.Errorf("a page of short lines splits one: %q", p.header)
		}
	}
}

func TestReadWebLongLineByLineOffset(t *testing.T) {
	// 200 KB on one line, with characters of 1 to 4 bytes so that
	// line_offset counts characters, not bytes.
	var b strings.Builder
	for i := 0; b.Len() < 200_000; i++ {
		fmt.Fprintf(&b, "mot %d é 日本 🙂 ", i)
	}
	long := b.String()
	for name, text := range map[string]string{
		"one line":        long,
		"lines around it": "Title\n\n" + long + "\nlast line\n",
	} {
		t.Run(name, func(t *testing.T) {
			e := newWebEnv(t, &webSnaps{texts: map[string]string{snapPath: text}})
			got, pages := readAll(t, e, nil)
			if got != strings.TrimSuffix(text, "\n") {
				t.Fatalf("the pages put together differ from the snapshot (%d bytes read, %d in the snapshot)", len(got), len(text))
			}
			split := 0
			for _, p := range pages {
				if p.nextChar > 0 {
					split++
					if !strings.Contains(p.header, fmt.Sprintf("; next_offset %d; line_offset %d", p.next, p.nextChar)) {
						t.Errorf("header %q", p.header)
					}
					if p.bodyBytes < files.WebPageBytes-8 {
						t.Errorf("a split page holds %d bytes: the line could fill it", p.bodyBytes)
					}
				}
				if strings.Contains(p.content, "line cut") {
					t.Errorf("a web page cuts a line: %q", p.header)
				}
			}
			if split < 3 {
				t.Errorf("a 200 KB line split %d times in 50 KiB pages", split)
			}
		})
	}
}

func TestReadWebMaxBytes(t *testing.T) {
	text := strings.Repeat(strings.Repeat("x", 99)+"\n", 2000) // 200 KB
	e := newWebEnv(t, &webSnaps{texts: map[string]string{snapPath: text}})
	// Asked more than a web page: capped at 50 KiB, and the page is full.
	p := parseWebPage(t, e.ok("read_file", map[string]any{"path": snapPath, "max_bytes": 65536}).Content)
	if p.bodyBytes > files.WebPageBytes || p.bodyBytes < files.WebPageBytes-200 {
		t.Errorf("max_bytes 65536: a page of %d bytes, want at most and nearly %d", p.bodyBytes, files.WebPageBytes)
	}
	// The default is the same page.
	d := parseWebPage(t, e.ok("read_file", map[string]any{"path": snapPath}).Content)
	if d.bodyBytes != p.bodyBytes {
		t.Errorf("default page %d bytes, max_bytes 65536 page %d", d.bodyBytes, p.bodyBytes)
	}
	// Asked less: honoured.
	small := parseWebPage(t, e.ok("read_file", map[string]any{"path": snapPath, "max_bytes": 2048}).Content)
	if small.bodyBytes > 2048 || small.bodyBytes < 2048-200 {
		t.Errorf("max_bytes 2048: a page of %d bytes", small.bodyBytes)
	}
	// limit counts lines.
	lim := parseWebPage(t, e.ok("read_file", map[string]any{"path": snapPath, "offset": 10, "limit": 3}).Content)
	if lim.first != 10 || lim.last != 12 || lim.next != 13 || len(lim.lines) != 3 {
		t.Errorf("offset 10 limit 3: %q", lim.header)
	}
}

func TestReadWebExpired(t *testing.T) {
	w := &webSnaps{texts: map[string]string{}}
	e := newWebEnv(t, w)
	e.fail("read_file", map[string]any{"path": snapPath}, "snapshot_expired", snapPath, "web_fetch", "example.com")
	if w.reads != 1 {
		t.Fatalf("the reader was asked %d times", w.reads)
	}
	// Another failure of the reader is shown as it is, not as expired.
	w.fail = errors.New("database is locked")
	msg := e.fail("read_file", map[string]any{"path": snapPath}, "database is locked", snapPath)
	lacks(t, msg, "snapshot_expired")
}

func TestReadWebWithoutReader(t *testing.T) {
	e := newWebEnv(t, nil)
	e.fail("read_file", map[string]any{"path": snapPath}, snapPath, "no web snapshots")
}

func TestReadWebRefusesBinary(t *testing.T) {
	text := strings.Repeat("text\n", 5000) + "\x00tail"
	e := newWebEnv(t, &webSnaps{texts: map[string]string{snapPath: text}})
	e.fail("read_file", map[string]any{"path": snapPath}, "NUL byte at byte 25000")
}

func TestLineOffsetOutsideWebSnapshots(t *testing.T) {
	w := &webSnaps{texts: map[string]string{snapPath: "short\nline two\n"}}
	e := newWebEnv(t, w)
	e.put("notes.txt", "one\ntwo\n")
	e.fail("read_file", map[string]any{"path": "notes.txt", "line_offset": 2}, "line_offset", "web://", "notes.txt")
	// The same file reads with line_offset 0: the refusal is line_offset's.
	contains(t, e.ok("read_file", map[string]any{"path": "notes.txt", "line_offset": 0}).Content, "notes.txt: lines 1-2 of 2; end of file", "\tone")
	e.fail("read_file", map[string]any{"path": "skill://x/SKILL.md", "line_offset": 1}, "line_offset", "web://")
	e.fail("read_file", map[string]any{"path": snapPath, "line_offset": -1}, "line_offset")
	// A direct caller, past the registry's schema check, is held to it too.
	for _, tool := range e.set.Tools() {
		if tool.Name() == files.ReadFileName {
			_, err := tool.Execute(context.Background(), []byte(`{"path":"`+snapPath+`","line_offset":-1}`))
			if err == nil || !strings.Contains(err.Error(), "line_offset must be at least 0") {
				t.Errorf("direct call with line_offset -1: %v", err)
			}
		}
	}
	// Past the end of the line it names.
	e.fail("read_file", map[string]any{"path": snapPath, "line_offset": 5}, "line_offset 5 is past the end of line 1 (5 characters)")
	contains(t, e.ok("read_file", map[string]any{"path": snapPath, "offset": 2, "line_offset": 5}).Content,
		snapPath+": lines 2-2 of 2 (line 2 from line_offset 5); end of file\n     2\ttwo\n")
	e.fail("read_file", map[string]any{"path": snapPath, "offset": 3}, "offset 3 is past the end", "2 lines")
}

func TestReadWebMasksSecrets(t *testing.T) {
	pem := "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASD\n-----END PRIVATE KEY-----"
	text := "intro\nkey " + redacttest.AWS + " here\n" + pem + "\nafter"
	e := newWebEnv(t, &webSnaps{texts: map[string]string{snapPath: text}})
	res := e.ok("read_file", map[string]any{"path": snapPath})
	lacks(t, res.Content, redacttest.AWS, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", "BEGIN PRIVATE KEY")
	// The lines keep their numbers: the key's four lines each hold a marker.
	contains(t, res.Content, "lines 1-7 of 7; end of file", "     2\tkey [REDACTED:aws_access_key] here\n",
		"     3\t[REDACTED:private_key]\n", "     6\t[REDACTED:private_key]\n", "     7\tafter\n")
}

func TestReadWebClassifiesByText(t *testing.T) {
	text := "DIFFUSION RESTREINTE\n" + strings.Repeat("a line of the page\n", 200)
	e := newWebEnv(t, &webSnaps{texts: map[string]string{snapPath: text, "web://example.com/plain.md": "nothing to see\n"}})
	far := e.ok("read_file", map[string]any{"path": snapPath, "offset": 150, "limit": 2})
	contains(t, far.Content, "lines 150-151") // the page was read
	if far.Classified == "" {
		t.Error("a page of a marked snapshot, far from the marking: not classified")
	}
	if plain := e.ok("read_file", map[string]any{"path": "web://example.com/plain.md"}); plain.Classified != "" {
		t.Errorf("an unmarked snapshot classified %q", plain.Classified)
	}
}
