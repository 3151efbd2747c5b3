package files

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"unicode/utf8"

	"github.com/moteur/moteur/redact"
)

// Web snapshots. read_file serves the web:// addresses web_fetch gives
// (seed 000: "corps complet dans full_output_path (web://, session seule),
// lecture multi-tours via read_file"), pages of at most WebPageBytes with
// the header and masking of a file's. A page turned to text may be one
// huge line (minified HTML): instead of being cut at maxLineBytes, a line
// too long for a page is split, and the header says where it goes on —
// "; next_offset K; line_offset M", M the 0-based character inside line K
// — which the next call passes back.

// WebScheme starts a web snapshot's address, web://HOST/ID.md.
const WebScheme = "web://"

// WebPageBytes is the most a page of a web snapshot holds, number prefixes
// included (seed 000: "snapshot Web 50 KiB/page"); tools/web says the same
// as SnapshotPageBytes.
const WebPageBytes = 50 << 10

// WebReader serves read_file's web:// addresses: the session's web
// snapshots.
type WebReader interface {
	// ReadWeb returns the whole text of the snapshot at path. A snapshot
	// the session does not hold (never kept, or dropped since) is an error
	// wrapping fs.ErrNotExist, which read_file turns into the retry code
	// snapshot_expired.
	ReadWeb(ctx context.Context, path string) (string, error)
}

// isWebURI reports whether a path argument is a web snapshot's address.
func isWebURI(p string) bool { return strings.HasPrefix(p, WebScheme) }

// readWebPage is read_file on a web snapshot: the page starting at
// character lineOffset of line offset.
func (s *Set) readWebPage(ctx context.Context, path string, offset, lineOffset, limit, maxBytes int) (string, string, error) {
	if s.web == nil {
		return "", "", fmt.Errorf("%s: this session keeps no web snapshots", path)
	}
	text, err := s.web.ReadWeb(ctx, path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", "", fmt.Errorf("snapshot_expired: %s is no longer kept by this session (%w); fetch the page again with web_fetch (its URL, from host %s) and read the snapshot path it gives", path, err, webHost(path))
	case err != nil:
		return "", "", fmt.Errorf("read %s: %w", path, err)
	}
	var rule string
	// The whole text, not its first sniffLen bytes as for a file: it is
	// held anyway, and paginateLong does not look for NUL bytes line by line.
	if i := strings.IndexByte(text, 0); i >= 0 {
		return "", "", fmt.Errorf("%s holds binary data (a NUL byte at byte %d of %d): read_file only returns text", path, i, len(text))
	}
	s.meetText(&rule, text)
	masked, _ := redact.Lines(text) // keeps the lines: numbers stay true
	p, err := paginateLong(ctx, masked, offset, lineOffset, limit, min(maxBytes, WebPageBytes))
	if err != nil {
		return "", rule, fmt.Errorf("read %s: %w", path, err)
	}
	page, err := p.text(path, offset, lineOffset)
	return page, rule, err
}

// webHost is the HOST of web://HOST/ID.md, to name the page to fetch again.
func webHost(path string) string {
	host, _, _ := strings.Cut(strings.TrimPrefix(path, WebScheme), "/")
	return host
}

// longPage is what paginateLong found.
type longPage struct {
	body       strings.Builder // the numbered lines
	shown      int             // lines in body, a part of one counting as one
	last       int             // number of the last line in body
	total      int             // lines in the text
	next       int             // line to continue from; 0 at the end
	nextChar   int             // character of line next to continue from
	byteCapped bool            // stopped by maxBytes rather than by limit or the end
	crlf       bool            // a shown line ended with \r\n
	num        [24]byte        // scratch for line numbers
}

// paginateLong numbers text's lines from character lineOffset of line
// offset, up to limit lines within maxBytes. A line that fits in a page of
// its own but not in what is left of this one is left for the next page,
// as paginate does; a longer one is split where the page is full.
func paginateLong(ctx context.Context, text string, offset, lineOffset, limit, maxBytes int) (*longPage, error) {
	p := &longPage{total: strings.Count(text, "\n")}
	if text != "" && !strings.HasSuffix(text, "\n") {
		p.total++
	}
	if p.total == 0 || offset > p.total {
		return p, nil
	}
	start := 0 // byte where line n starts
	for n := 1; n < offset; n++ {
		start += strings.IndexByte(text[start:], '\n') + 1
	}
	from := lineOffset
	for n := offset; n <= p.total; n++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		line, rest := text[start:], len(text)
		if i := strings.IndexByte(line, '\n'); i >= 0 {
			line, rest = line[:i], start+i+1
		}
		line, cr := strings.CutSuffix(line, "\r")
		if from > 0 {
			b, ok := runeIndex(line, from)
			if !ok {
				return nil, fmt.Errorf("line_offset %d is past the end of line %d (%s)", from, n, plural(utf8.RuneCountInString(line), "character"))
			}
			line = line[b:]
		}
		prefix := lineNumber(p.num[:0], n)
		room := maxBytes - p.body.Len() - len(prefix) - 1
		if len(line) > room {
			whole := len(line) <= maxBytes-len(prefix)-1
			part := string(cutUTF8([]byte(line), room))
			if p.shown > 0 && (whole || part == "") {
				p.next, p.nextChar, p.byteCapped = n, from, true
				break
			}
			if part == "" { // a page too small for one character
				_, size := utf8.DecodeRuneInString(line)
				part = line[:size]
			}
			p.add(n, prefix, part)
			p.next, p.nextChar, p.byteCapped = n, from+utf8.RuneCountInString(part), true
			break
		}
		p.add(n, prefix, line)
		p.crlf = p.crlf || cr
		start, from = rest, 0
		if p.shown == limit && n < p.total {
			p.next = n + 1
			break
		}
	}
	return p, nil
}

func (p *longPage) add(n int, prefix []byte, text string) {
	p.body.Write(prefix)
	p.body.WriteString(text)
	p.body.WriteByte('\n')
	p.shown++
	p.last = n
}

// text is the page with its header "NAME: lines A-B of N; …", as a file
// page's, saying where a split line goes on.
func (p *longPage) text(name string, offset, lineOffset int) (string, error) {
	switch {
	case p.total == 0:
		return fmt.Sprintf("%s: empty file (0 lines)", name), nil
	case p.shown == 0:
		return "", fmt.Errorf("offset %d is past the end of %s (%s)", offset, name, plural(p.total, "line"))
	}
	var b strings.Builder
	b.Grow(len(name) + 96 + p.body.Len())
	fmt.Fprintf(&b, "%s: lines %d-%d of %d", name, offset, p.last, p.total)
	if lineOffset > 0 {
		fmt.Fprintf(&b, " (line %d from line_offset %d)", offset, lineOffset)
	}
	switch {
	case p.next == 0:
		b.WriteString("; end of file")
	case p.nextChar > 0:
		fmt.Fprintf(&b, "; next_offset %d; line_offset %d", p.next, p.nextChar)
	default:
		fmt.Fprintf(&b, "; next_offset %d", p.next)
		if p.byteCapped {
			b.WriteString(" (max_bytes reached)")
		}
	}
	if p.crlf {
		b.WriteString("; CRLF line endings")
	}
	b.WriteByte('\n')
	b.WriteString(p.body.String())
	return b.String(), nil
}

// runeIndex returns the byte index of character k of s (an invalid byte
// counting as one character, as utf8.RuneCountInString counts it); k must
// be inside s.
func runeIndex(s string, k int) (int, bool) {
	i := 0
	for ; k > 0 && i < len(s); k-- {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i, k == 0 && i < len(s)
}
