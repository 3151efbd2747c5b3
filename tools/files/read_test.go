package files_test

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
)

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestReadFileFormat(t *testing.T) {
	e := newEnv(t)
	e.put("a.txt", "first\n\tsecond\nthird")
	got := e.ok("read_file", map[string]any{"path": "a.txt"}).Content
	want := "a.txt: lines 1-3 of 3; end of file\n" +
		"     1\tfirst\n" +
		"     2\t\tsecond\n" +
		"     3\tthird\n"
	if got != want {
		t.Errorf("read_file =\n%q\nwant\n%q", got, want)
	}
}

func TestReadFilePaging(t *testing.T) {
	e := newEnv(t)
	e.put("big.txt", numbered(1, 5000))

	// Default limit: 2000 lines, then next_offset.
	got := e.ok("read_file", map[string]any{"path": "big.txt"}).Content
	contains(t, got, "big.txt: lines 1-2000 of 5000; next_offset 2001\n", "     1\tline 1\n", "  2000\tline 2000\n")
	lacks(t, got, "line 2001")

	got = e.ok("read_file", map[string]any{"path": "big.txt", "offset": 2001, "limit": 3}).Content
	if want := "big.txt: lines 2001-2003 of 5000; next_offset 2004\n  2001\tline 2001\n  2002\tline 2002\n  2003\tline 2003\n"; got != want {
		t.Errorf("page =\n%q\nwant\n%q", got, want)
	}
	// The last page says so. Quoted integers are cast by the registry.
	got = e.ok("read_file", `{"path":"big.txt","offset":"4999","limit":"10"}`).Content
	contains(t, got, "lines 4999-5000 of 5000; end of file", "line 5000")

	e.fail("read_file", map[string]any{"path": "big.txt", "offset": 5001}, "offset 5001 is past the end", "5000 lines")
	e.fail("read_file", map[string]any{"path": "big.txt", "offset": 0}, "offset")
	e.fail("read_file", map[string]any{"path": "big.txt", "max_bytes": 1 << 20}, "max_bytes")
}

// max_bytes stops a page before the line that would exceed it, and
// next_offset resumes exactly there.
func TestReadFileMaxBytes(t *testing.T) {
	e := newEnv(t)
	e.put("big.txt", numbered(1, 5000))
	got := e.ok("read_file", map[string]any{"path": "big.txt", "max_bytes": 1024}).Content
	header, body, _ := strings.Cut(got, "\n")
	if len(body) > 1024 {
		t.Errorf("body is %d bytes, over max_bytes 1024", len(body))
	}
	n := strings.Count(body, "\n")
	contains(t, header, fmt.Sprintf("lines 1-%d of 5000; next_offset %d (max_bytes reached)", n, n+1))
	if !strings.HasSuffix(body, fmt.Sprintf("\tline %d\n", n)) {
		t.Errorf("page does not end with line %d:\n%s", n, body)
	}
	// Default max_bytes: 64 KiB, whatever the line limit.
	got = e.ok("read_file", map[string]any{"path": "big.txt", "limit": 100000}).Content
	_, body, _ = strings.Cut(got, "\n")
	if len(body) > 64<<10 || len(body) < 60<<10 {
		t.Errorf("default page body is %d bytes, want just under 64 KiB", len(body))
	}
}

// A long line is cut with a marker; a line longer than the whole budget is
// still returned, cut to fit, so paging moves on.
func TestReadFileLongLines(t *testing.T) {
	e := newEnv(t)
	long := strings.Repeat("é", 3000) // 6000 bytes, two per rune
	e.put("long.txt", "short\n"+long+"\nend\n")
	got := e.ok("read_file", map[string]any{"path": "long.txt"}).Content
	contains(t, got, "     2\t"+strings.Repeat("é", 1000)+" … [line cut: 2000 of 6000 bytes shown]\n", "     3\tend")

	got = e.ok("read_file", map[string]any{"path": "long.txt", "offset": 2, "max_bytes": 1024}).Content
	contains(t, got, "long.txt: lines 2-", "     2\t"+strings.Repeat("é", 400), "[line cut:")
	_, body, _ := strings.Cut(got, "\n")
	if len(body) > 1024 {
		t.Errorf("body %d bytes over max_bytes", len(body))
	}
	if strings.ContainsRune(got, '\uFFFD') {
		t.Error("a cut split a UTF-8 sequence")
	}
}

func TestReadFileSpecialCases(t *testing.T) {
	e := newEnv(t)
	e.put("empty.txt", "")
	e.put("crlf.txt", "a\r\nb\r\n")
	e.put("dir/x.txt", "x")
	e.put("image.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")

	contains(t, e.ok("read_file", map[string]any{"path": "empty.txt"}).Content, "empty file")
	got := e.ok("read_file", map[string]any{"path": "crlf.txt"}).Content
	contains(t, got, "CRLF line endings", "     1\ta\n")
	lacks(t, got, "\r")
	e.fail("read_file", map[string]any{"path": "dir"}, "is a directory", "list_files")
	e.fail("read_file", map[string]any{"path": "missing.txt"}, "missing.txt", "not exist")
	msg := e.fail("read_file", map[string]any{"path": "image.png"}, "image.png is a binary file", "only returns text")
	lacks(t, msg, "IHDR")
	// The first 8000 bytes decide, even for a page that would stop before
	// the NUL byte.
	e.put("header.bin", "MAGIC\n"+numbered(1, 100)+"\x00")
	e.fail("read_file", map[string]any{"path": "header.bin", "limit": 1}, "binary file", "first 8000 bytes")
}

// Binary content further in the file is caught on the page that would show
// it.
func TestReadFileLateBinary(t *testing.T) {
	e := newEnv(t)
	e.put("mixed.txt", numbered(1, 2000)+"bin\x00ary\n")
	contains(t, e.ok("read_file", map[string]any{"path": "mixed.txt", "limit": 10}).Content, "lines 1-10 of 2001")
	e.fail("read_file", map[string]any{"path": "mixed.txt", "offset": 1990}, "binary", "line 2001")
}

// A 100 MB file is paged, not loaded: the result holds at most max_bytes of
// lines and the call allocates nowhere near the file's size.
func TestReadFileHugeSparse(t *testing.T) {
	e := newEnv(t)
	text := numbered(1, 20000) // ~200 KB of text, then zeros
	e.put("huge.log", text)
	if err := os.Truncate(e.path("huge.log"), 100<<20); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res := e.ok("read_file", map[string]any{"path": "huge.log"})
	runtime.ReadMemStats(&after)

	header, body, _ := strings.Cut(res.Content, "\n")
	if len(body) > 64<<10 {
		t.Errorf("body is %d bytes, over 64 KiB", len(body))
	}
	contains(t, header, "huge.log: lines 1-", "of 20001; next_offset")
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("reading one page allocated %d MB", alloc>>20)
	}
}
