package files

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/moteur/moteur/effect"
	"github.com/moteur/moteur/redact"
	"github.com/moteur/moteur/tools"
)

// read_file limits.
const (
	defaultReadLines = 2000
	maxReadBytes     = 64 << 10
	minReadBytes     = 1024
	// maxLineBytes cuts very long lines (minified code, data on one line)
	// so that one line cannot take a whole page.
	maxLineBytes = 2000
	// readChunk is the streaming buffer: a large file is never held in
	// memory, whatever its size.
	readChunk = 64 << 10
)

const readDescription = `Read a text file of the project, as numbered lines.

- path: relative to the project root (or absolute inside it), or a skill's address skill://NAME/SKILL.md (its instructions, files and how to run its scripts) or skill://NAME/PATH (one of its files), when the session has skills, or a web snapshot web://HOST/ID.md that web_fetch gave (the whole text of a page read in this session, in pages of at most 51200 bytes).
- offset: 1-based number of the first line to return (default 1).
- limit: number of lines to return (default 2000).
- max_bytes: cap on the returned lines, number prefixes included (default and maximum 65536); the page stops before the line that would exceed it.
- line_offset: web:// snapshots only: 0-based character of line offset to start from (default 0), the line_offset of the previous page's header.

The result starts with a header "PATH: lines A-B of N" followed by "; next_offset K" when the file goes on (call again with offset K to continue) or "; end of file". Each line is then written as its number, a tab, and the text, like "cat -n": the number and the tab are NOT part of the file, leave them out of edit_file's old_string. Lines longer than 2000 bytes are cut, with a marker; in a web:// snapshot a line too long for the page is split instead, the header ending "; next_offset K; line_offset M" (call again with offset K and line_offset M). A header note "CRLF line endings" means lines end with \r\n in the file.

Secrets in the file (private keys, API keys, tokens, passwords) are shown as [REDACTED:<kind>], on each line they covered.

Binary files (a NUL byte in the first 8000 bytes) are not returned; directories are refused (use list_files).`

const readSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "minLength": 1, "description": "File to read, relative to the project root, or a skill:// or web:// address."},
    "offset": {"type": "integer", "minimum": 1, "description": "1-based line to start from (default 1); use the next_offset of the previous page to continue."},
    "limit": {"type": "integer", "minimum": 1, "description": "Maximum number of lines to return (default 2000)."},
    "max_bytes": {"type": "integer", "minimum": 1024, "maximum": 65536, "description": "Maximum size of the returned lines in bytes (default and maximum 65536; 51200 for a web:// snapshot)."},
    "line_offset": {"type": "integer", "minimum": 0, "description": "web:// snapshots only: 0-based character of line offset to start from (default 0); use the line_offset of the previous page to continue a split line."}
  },
  "required": ["path"]
}`

// ReadFile is the read_file tool.
type ReadFile struct{ s *Set }

// Name implements tools.Tool.
func (*ReadFile) Name() string { return ReadFileName }

// Description implements tools.Tool.
func (*ReadFile) Description() string { return readDescription }

// Schema implements tools.Tool.
func (*ReadFile) Schema() json.RawMessage { return json.RawMessage(readSchema) }

// Risk implements tools.Tool.
func (*ReadFile) Risk() effect.Risk { return effect.RiskRead }

// Concurrent implements tools.Tool: reads share nothing but the cache,
// which locks itself.
func (*ReadFile) Concurrent() bool { return true }

// MaxOutput lets a whole page (max_bytes, plus its header) through the
// registry, whose default limit is smaller than a page.
func (*ReadFile) MaxOutput() int { return maxReadBytes + 4096 }

type readArgs struct {
	Path     string `json:"path"`
	Offset   *int   `json:"offset"`
	Limit    *int   `json:"limit"`
	MaxBytes *int   `json:"max_bytes"`
	// LineOffset starts a web:// page inside a line (see web.go).
	LineOffset *int `json:"line_offset"`
}

// Execute returns one page of the file.
func (t *ReadFile) Execute(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	var a readArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return tools.Result{}, fmt.Errorf("read_file: %w", err)
	}
	// The schema bounds these for the model; a direct caller is held to
	// the same contract rather than trusted.
	offset, limit, maxBytes := 1, defaultReadLines, maxReadBytes
	if a.Offset != nil {
		if *a.Offset < 1 {
			return tools.Result{}, fmt.Errorf("read_file: offset must be at least 1, got %d", *a.Offset)
		}
		offset = *a.Offset
	}
	if a.Limit != nil {
		if *a.Limit < 1 {
			return tools.Result{}, fmt.Errorf("read_file: limit must be at least 1, got %d", *a.Limit)
		}
		limit = *a.Limit
	}
	if a.MaxBytes != nil {
		maxBytes = min(max(*a.MaxBytes, minReadBytes), maxReadBytes)
	}
	lineOffset := 0
	if a.LineOffset != nil {
		if *a.LineOffset < 0 {
			return tools.Result{}, fmt.Errorf("read_file: line_offset must be at least 0, got %d", *a.LineOffset)
		}
		lineOffset = *a.LineOffset
	}
	read := t.s.readPage
	switch {
	case isWebURI(a.Path):
		read = func(ctx context.Context, path string, offset, limit, maxBytes int) (string, string, error) {
			return t.s.readWebPage(ctx, path, offset, lineOffset, limit, maxBytes)
		}
	case lineOffset != 0:
		return tools.Result{}, fmt.Errorf("read_file: line_offset is only for web:// snapshots, whose long lines are split; %s is read by whole lines (use offset)", a.Path)
	case isSkillURI(a.Path):
		read = t.s.readSkillPage
	}
	content, rule, err := read(ctx, a.Path, offset, limit, maxBytes)
	return answer(ReadFileName, tools.Result{Content: content}, rule, err)
}

// readPage returns the page, and the classification rule of the file once
// it is open: from then on, errors too say something of its content.
func (s *Set) readPage(ctx context.Context, path string, offset, limit, maxBytes int) (string, string, error) {
	tg, err := s.resolve(path)
	if err != nil {
		return "", "", err
	}
	// Lstat before Open: opening a FIFO would block until a writer comes,
	// and a device may never end. resolve left no symlink in the path, so
	// Lstat describes the file Open will reach.
	fi, err := s.dir.Lstat(tg.os())
	if err != nil {
		return "", "", describe(tg, "read", err)
	}
	if fi.IsDir() {
		return "", "", fmt.Errorf("%s is a directory: use list_files to see its entries", tg.arg)
	}
	if !fi.Mode().IsRegular() {
		return "", "", fmt.Errorf("%s is not a regular file (%s)", tg.arg, fi.Mode().Type())
	}
	f, err := s.dir.Open(tg.os())
	if err != nil {
		return "", "", describe(tg, "read", err)
	}
	defer f.Close()
	fi, err = f.Stat()
	if err != nil {
		return "", "", describe(tg, "read", err)
	}
	if !fi.Mode().IsRegular() {
		return "", "", fmt.Errorf("%s is not a regular file (%s)", tg.arg, fi.Mode().Type())
	}
	rule := s.classified(tg.rel)
	// Secrets are masked and markings looked for in the file's text as it
	// is, before any line gets its number: "     2\t" in front of a key's
	// second line hides the block from the rules, and in front of a
	// stamp's second word splits the marking.
	var p *page
	data, whole, err := s.wholeFile(tg.rel, f, fi)
	switch {
	case err != nil:
		return "", rule, describe(tg, "read", err)
	case whole && looksBinary(data):
		err = fmt.Errorf("%w in the first %d bytes", errBinary, sniffLen)
	case whole:
		text := string(data)
		s.meetText(&rule, text)
		masked, _ := redact.Lines(text) // keeps the lines: numbers stay true
		p, err = paginate(ctx, strings.NewReader(masked), offset, limit, maxBytes, nil)
	default:
		// Too large to hold: masked line by line, classified chunk by
		// chunk, as it streams.
		g := &streamGuard{s: s, rule: &rule}
		p, err = paginate(ctx, io.MultiReader(bytes.NewReader(data), f), offset, limit, maxBytes, g)
		g.finish()
	}
	if err != nil {
		if errors.Is(err, errBinary) {
			return "", rule, fmt.Errorf("%s is a binary file (%d bytes, %v): read_file only returns text", tg.arg, fi.Size(), err)
		}
		return "", rule, describe(tg, "read", err)
	}
	text, err := pageText(tg.rel, tg.arg, offset, p)
	return text, rule, err
}

// pageText is a page with its header "NAME: lines A-B of N; …"; arg names
// the file in errors as the model wrote it.
func pageText(name, arg string, offset int, p *page) (string, error) {
	switch {
	case p.total == 0:
		return fmt.Sprintf("%s: empty file (0 lines)", name), nil
	case p.shown == 0:
		return "", fmt.Errorf("offset %d is past the end of %s (%s)", offset, arg, plural(p.total, "line"))
	}
	var b strings.Builder
	b.Grow(len(name) + 64 + p.body.Len())
	fmt.Fprintf(&b, "%s: lines %d-%d of %d", name, offset, offset+p.shown-1, p.total)
	if next := offset + p.shown; next <= p.total {
		fmt.Fprintf(&b, "; next_offset %d", next)
		if p.byteCapped {
			b.WriteString(" (max_bytes reached)")
		}
	} else {
		b.WriteString("; end of file")
	}
	if p.crlf {
		b.WriteString("; CRLF line endings")
	}
	b.WriteByte('\n')
	b.Write(p.body.Bytes())
	return b.String(), nil
}

// wholeFile returns the content of a small file (at most maxFile bytes),
// from the cache or read (and cached) from f, with whole true. A larger
// file, or one that grew past maxFile since fi was taken, is not held:
// whole is false and data is what was read of it so far, the rest to be
// streamed from f.
func (s *Set) wholeFile(rel string, f *os.File, fi os.FileInfo) (data []byte, whole bool, err error) {
	if fi.Size() > s.cache.maxFile {
		return nil, false, nil
	}
	epoch := s.cache.epoch(rel)
	if data, ok := s.cache.get(rel, fi); ok {
		return data, true, nil
	}
	data, err = io.ReadAll(io.LimitReader(f, s.cache.maxFile+1))
	if err != nil {
		return nil, false, err
	}
	if int64(len(data)) > s.cache.maxFile {
		return data, false, nil
	}
	// put keeps it only if it still has the size fi gave and fi's mtime is
	// old enough to be trusted.
	s.cache.put(rel, fi, epoch, data, s.now())
	return data, true, nil
}

// chunkPool recycles paginate's read buffers: one per call would be the
// call's largest allocation.
var chunkPool = sync.Pool{New: func() any { b := make([]byte, readChunk); return &b }}

// errBinary reports a NUL byte, the mark of a binary file.
var errBinary = errors.New("NUL byte")

// page is what paginate found.
type page struct {
	guard      *streamGuard // masks each line before it is numbered, if set
	body       bytes.Buffer // the numbered lines
	shown      int          // lines in body
	total      int          // lines in the file
	byteCapped bool         // stopped by max_bytes rather than by limit or EOF
	crlf       bool         // a shown line ended with \r\n
	num        [24]byte     // scratch for line numbers
}

// lineNumber appends n right-aligned on 6 columns and a tab, as "cat -n"
// writes it (fmt would allocate once per line).
func lineNumber(dst []byte, n int) []byte {
	var digits [20]byte
	d := strconv.AppendInt(digits[:0], int64(n), 10)
	for i := len(d); i < 6; i++ {
		dst = append(dst, ' ')
	}
	dst = append(dst, d...)
	return append(dst, '\t')
}

// paginate streams r once: it skips to line offset, numbers up to limit
// lines within maxBytes, then only counts the remaining lines. Memory stays
// within one chunk and one (cut) line whatever the file's size.
//
// A line is what ends with \n, plus a last one without it if the file does
// not end with \n; an empty file has no line.
//
// g, when not nil, masks and classifies what streams through (a file too
// large to mask whole beforehand).
func paginate(ctx context.Context, r io.Reader, offset, limit, maxBytes int, g *streamGuard) (*page, error) {
	p := &page{guard: g}
	// Grown once to the page's bound rather than doubling on the way.
	p.body.Grow(min(maxBytes, maxReadBytes))
	bp := chunkPool.Get().(*[]byte)
	defer chunkPool.Put(bp)
	buf := *bp
	line := 1        // number of the line the next byte belongs to
	var cur []byte   // the current line's bytes, kept up to the cut
	curLen := 0      // the current line's full length
	partial := false // bytes seen since the last \n
	stopped := false // page full: only count from now on
	first := true

	emit := func() error {
		if line < offset || stopped {
			return nil
		}
		added, err := p.add(line, cur, curLen, maxBytes)
		if err != nil {
			return err
		}
		if !added || p.shown == limit {
			stopped = true
		}
		return nil
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, err := r.Read(buf)
		chunk := buf[:n]
		if first && n > 0 {
			first = false
			if looksBinary(chunk) {
				return nil, fmt.Errorf("%w in the first %d bytes", errBinary, sniffLen)
			}
		}
		if g != nil {
			g.chunk(chunk)
		}
		for len(chunk) > 0 {
			if stopped {
				line += bytes.Count(chunk, []byte{'\n'})
				partial = chunk[len(chunk)-1] != '\n'
				break
			}
			i := bytes.IndexByte(chunk, '\n')
			part := chunk
			if i >= 0 {
				part, chunk = chunk[:i], chunk[i+1:]
			} else {
				chunk = nil
			}
			if line >= offset {
				if room := maxLineBytes + 8 - len(cur); room > 0 {
					cur = append(cur, part[:min(len(part), room)]...)
				}
				curLen += len(part)
			} else if g != nil {
				g.skipping(part)
			}
			if i < 0 {
				partial = partial || len(part) > 0
				continue
			}
			if line < offset && g != nil {
				g.skipped()
			}
			if err := emit(); err != nil {
				return nil, err
			}
			line++
			cur, curLen, partial = cur[:0], 0, false
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if partial {
		if err := emit(); err != nil {
			return nil, err
		}
		p.total = line
	} else {
		p.total = line - 1
	}
	return p, nil
}

// add appends line n, of which b holds the first bytes and which is fullLen
// bytes long, if it fits in maxBytes. The first line of a page always goes
// in, cut to fit, so that paging always moves on.
func (p *page) add(n int, b []byte, fullLen, maxBytes int) (bool, error) {
	text := b[:min(len(b), fullLen)]
	if fullLen == len(text) && len(text) > 0 && text[len(text)-1] == '\r' {
		text = text[:len(text)-1]
		fullLen--
		p.crlf = true
	}
	if bytes.IndexByte(text, 0) >= 0 {
		return false, fmt.Errorf("%w at line %d", errBinary, n)
	}
	if p.guard != nil {
		whole := fullLen == len(text)
		text = p.guard.maskLine(text)
		if whole {
			fullLen = len(text)
		}
	}
	prefix := lineNumber(p.num[:0], n)
	shownLen := len(text)
	if fullLen > maxLineBytes {
		text = cutUTF8(text, maxLineBytes)
		shownLen = len(text)
	}
	marker := cutMarker(shownLen, fullLen)
	if p.body.Len()+len(prefix)+len(text)+len(marker)+1 > maxBytes {
		if p.shown > 0 {
			p.byteCapped = true
			return false, nil
		}
		// The longest marker is about 60 bytes; keep room for it.
		text = cutUTF8(text, maxBytes-len(prefix)-1-64)
		marker = cutMarker(len(text), fullLen)
	}
	p.body.Write(prefix)
	p.body.Write(text)
	p.body.WriteString(marker)
	p.body.WriteByte('\n')
	p.shown++
	return true, nil
}

// cutMarker tells the model a line was cut, and how much of it it sees.
func cutMarker(shown, full int) string {
	if shown >= full {
		return ""
	}
	return fmt.Sprintf(" … [line cut: %d of %d bytes shown]", shown, full)
}

// streamGuard masks and classifies a file too large to hold while
// paginate streams it. Lines are masked one by one; a private key block is
// followed across lines, from its BEGIN line to its END line (lines before
// the page included), so that a page starting inside one shows none of it.
// Classified by its text are the file's first guardHead bytes (where a
// document carries its stamp), chunk by chunk with the end of the chunk
// before so that a marking across two is found, and the page shown with
// the line before it. Reading every chunk of a file that may be gigabytes
// long to classify it would hold the call for that long.
type streamGuard struct {
	s     *Set
	rule  *string // the result's classification rule
	seen  int     // bytes of the file classified
	tail  []byte  // the end of the text classified so far
	inKey bool    // inside a private key block
	head  []byte  // the start of the line being skipped
	prev  []byte  // the start of the last line skipped
	page  []byte  // the page's lines as they are in the file
}

const (
	// guardHead is how much of a large file is classified from its start.
	guardHead = 1 << 20
	// guardOverlap is how much of a chunk's end is classified again with
	// the next chunk: more than any marking, however disguised.
	guardOverlap = 1 << 10
	// keyLineHead is how much of a skipped line is kept to recognise a
	// key block's BEGIN or END line, or to classify with the page.
	keyLineHead = 1 << 10
)

// chunk classifies the next chunk of the file, within its first guardHead
// bytes.
func (g *streamGuard) chunk(b []byte) {
	if *g.rule != "" || len(b) == 0 || g.seen >= guardHead {
		return
	}
	g.seen += len(b)
	text := append(g.tail, b...)
	// An incomplete rune at the end waits for the next chunk.
	cut := len(text)
	for k := 1; k <= utf8.UTFMax-1 && k <= len(text); k++ {
		if utf8.RuneStart(text[len(text)-k]) {
			if !utf8.FullRune(text[len(text)-k:]) {
				cut = len(text) - k
			}
			break
		}
	}
	g.s.meetText(g.rule, string(text[:cut]))
	from := max(0, cut-guardOverlap)
	for from < cut && !utf8.RuneStart(text[from]) {
		from++
	}
	g.tail = append(g.tail[:0:0], text[from:]...)
}

// finish classifies the page shown, with the line before it.
func (g *streamGuard) finish() {
	if *g.rule == "" && len(g.page) > 0 {
		g.s.meetText(g.rule, string(g.prev)+"\n"+string(g.page))
	}
}

// skipping keeps the start of a line before the page.
func (g *streamGuard) skipping(part []byte) {
	if room := keyLineHead - len(g.head); room > 0 {
		g.head = append(g.head, part[:min(len(part), room)]...)
	}
}

// skipped follows key blocks through the line before the page that just
// ended.
func (g *streamGuard) skipped() {
	g.keyLine(g.head)
	g.prev = append(g.prev[:0], g.head...)
	g.head = g.head[:0]
}

// maskLine returns a line of the page, masked.
func (g *streamGuard) maskLine(line []byte) []byte {
	g.page = append(append(g.page, line...), '\n')
	if g.keyLine(line) {
		return []byte(redact.Marker(redact.KindPrivateKey))
	}
	m, kinds := redact.String(string(line))
	if kinds == nil {
		return line
	}
	return []byte(m)
}

// keyLine reports whether line belongs to a private key block (its BEGIN
// line, its END line or a line between), and follows the block.
func (g *streamGuard) keyLine(line []byte) bool {
	if g.inKey {
		g.inKey = !keyEnd(line)
		return true
	}
	t := bytes.TrimLeft(line, " \t\"'")
	if !keyBegin(t) {
		return false
	}
	g.inKey = !keyEnd(t[len("-----BEGIN "):])
	return true
}

// keyBegin reports whether t starts with the BEGIN line of a private key
// ("-----BEGIN RSA PRIVATE KEY-----", "… PRIVATE KEY BLOCK-----").
func keyBegin(t []byte) bool {
	rest, ok := bytes.CutPrefix(t, []byte("-----BEGIN "))
	if !ok {
		return false
	}
	label, _, ok := bytes.Cut(rest, []byte("-----"))
	return ok && (bytes.HasSuffix(label, []byte("PRIVATE KEY")) || bytes.HasSuffix(label, []byte("PRIVATE KEY BLOCK")))
}

// keyEnd reports whether line holds the END line of a private key.
func keyEnd(line []byte) bool {
	_, rest, ok := bytes.Cut(line, []byte("-----END "))
	if !ok {
		return false
	}
	label, _, ok := bytes.Cut(rest, []byte("-----"))
	return ok && bytes.Contains(label, []byte("PRIVATE KEY"))
}
