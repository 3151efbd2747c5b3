package parse

// pdfTokKind is the kind of a token of a content stream or a CMap.
type pdfTokKind uint8

const (
	tokEOF pdfTokKind = iota
	tokNum
	tokStr  // a literal or hexadecimal string, decoded
	tokName // /Name, without the slash
	tokOp   // an operator or keyword: Tj, BT, begincodespacerange, true…
	tokArrOpen
	tokArrClose
	tokDictOpen
	tokDictClose
)

// pdfToken is one token; str holds the bytes of a string, a name or an
// operator (for an operator, a slice of the input: do not keep it).
type pdfToken struct {
	kind pdfTokKind
	num  float64
	str  []byte
}

// pdfLexer cuts a content stream or a CMap into tokens. It never fails:
// bytes that make no token are skipped, and the end of the input ends
// an unterminated string.
type pdfLexer struct {
	data []byte
	pos  int
	buf  []byte // scratch for decoded strings, reused when the caller is done
}

func isPDFSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

func isPDFDelim(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

// next returns the next token. The str of a string token stays valid
// until the next call that decodes a string.
func (l *pdfLexer) next() pdfToken {
	for {
		l.skipSpace()
		if l.pos >= len(l.data) {
			return pdfToken{kind: tokEOF}
		}
		c := l.data[l.pos]
		switch {
		case c == '(':
			l.pos++
			return pdfToken{kind: tokStr, str: l.literal()}
		case c == '<' && l.peek(1) == '<':
			l.pos += 2
			return pdfToken{kind: tokDictOpen}
		case c == '>' && l.peek(1) == '>':
			l.pos += 2
			return pdfToken{kind: tokDictClose}
		case c == '<':
			l.pos++
			return pdfToken{kind: tokStr, str: l.hex()}
		case c == '[':
			l.pos++
			return pdfToken{kind: tokArrOpen}
		case c == ']':
			l.pos++
			return pdfToken{kind: tokArrClose}
		case c == '/':
			l.pos++
			return pdfToken{kind: tokName, str: l.word()}
		case c == '+' || c == '-' || c == '.' || c >= '0' && c <= '9':
			if t, ok := l.number(); ok {
				return t
			}
			return pdfToken{kind: tokOp, str: l.word()}
		case isPDFDelim(c):
			l.pos++ // a stray ')', '>', '{' or '}': nothing to make of it
		default:
			return pdfToken{kind: tokOp, str: l.word()}
		}
	}
}

func (l *pdfLexer) peek(off int) byte {
	if l.pos+off < len(l.data) {
		return l.data[l.pos+off]
	}
	return 0
}

// skipSpace skips white space and comments.
func (l *pdfLexer) skipSpace() {
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		switch {
		case isPDFSpace(c):
			l.pos++
		case c == '%':
			for l.pos < len(l.data) && l.data[l.pos] != '\n' && l.data[l.pos] != '\r' {
				l.pos++
			}
		default:
			return
		}
	}
}

// word reads a run of regular characters (at least one, so the lexer
// always moves on).
func (l *pdfLexer) word() []byte {
	start := l.pos
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		if isPDFSpace(c) || isPDFDelim(c) {
			break
		}
		l.pos++
	}
	if l.pos == start && l.pos < len(l.data) && l.data[start] != '/' {
		l.pos++
	}
	return l.data[start:l.pos]
}

func (l *pdfLexer) number() (pdfToken, bool) {
	start := l.pos
	end := start
	for end < len(l.data) {
		c := l.data[end]
		if !(c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+') {
			break
		}
		end++
	}
	s := l.data[start:end]
	// PDF numbers have no exponent; "--5" or "1-2" happen in broken files
	// and mean the leading part.
	v, ok := parsePDFNumber(s)
	if !ok {
		return pdfToken{}, false
	}
	l.pos = end
	return pdfToken{kind: tokNum, num: v}, true
}

// parsePDFNumber reads [+-]digits[.digits] at the start of s, ignoring
// what follows; ok is false when there is no digit.
func parsePDFNumber(s []byte) (float64, bool) {
	i := 0
	for i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	neg := i > 0 && s[i-1] == '-'
	digits := 0
	var v float64
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		v = v*10 + float64(s[i]-'0')
		digits++
	}
	if i < len(s) && s[i] == '.' {
		scale := 0.1
		for i++; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			v += float64(s[i]-'0') * scale
			scale /= 10
			digits++
		}
	}
	if digits == 0 {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

// literal decodes a (string) whose opening parenthesis is consumed.
func (l *pdfLexer) literal() []byte {
	out := l.buf[:0]
	depth := 1
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		l.pos++
		switch c {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				l.buf = out
				return out
			}
		case '\\':
			out = l.escape(out)
			continue
		case '\r':
			// An end of line in a string is a line feed, whatever its bytes.
			if l.pos < len(l.data) && l.data[l.pos] == '\n' {
				l.pos++
			}
			c = '\n'
		}
		out = append(out, c)
	}
	l.buf = out
	return out
}

func (l *pdfLexer) escape(out []byte) []byte {
	if l.pos >= len(l.data) {
		return out
	}
	c := l.data[l.pos]
	l.pos++
	switch c {
	case 'n':
		return append(out, '\n')
	case 'r':
		return append(out, '\r')
	case 't':
		return append(out, '\t')
	case 'b':
		return append(out, '\b')
	case 'f':
		return append(out, '\f')
	case '\r':
		if l.pos < len(l.data) && l.data[l.pos] == '\n' {
			l.pos++
		}
		return out // a line continuation
	case '\n':
		return out
	}
	if c >= '0' && c <= '7' {
		v := int(c - '0')
		for k := 0; k < 2 && l.pos < len(l.data) && l.data[l.pos] >= '0' && l.data[l.pos] <= '7'; k++ {
			v = v*8 + int(l.data[l.pos]-'0')
			l.pos++
		}
		return append(out, byte(v))
	}
	return append(out, c) // \( \) \\ and unknown escapes: the character
}

// hex decodes a <hex string> whose opening bracket is consumed; an odd
// last digit counts as followed by 0.
func (l *pdfLexer) hex() []byte {
	out := l.buf[:0]
	var hi byte
	half := false
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		l.pos++
		if c == '>' {
			break
		}
		v, ok := hexVal(c)
		if !ok {
			continue
		}
		if half {
			out = append(out, hi<<4|v)
		} else {
			hi = v
		}
		half = !half
	}
	if half {
		out = append(out, hi<<4)
	}
	l.buf = out
	return out
}

func hexVal(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// skipInlineImage moves past the data of an inline image: the lexer is
// just after BI; the data runs from ID to an EI standing alone.
func (l *pdfLexer) skipInlineImage() {
	for {
		t := l.next()
		if t.kind == tokEOF {
			return
		}
		if t.kind == tokOp && string(t.str) == "ID" {
			break
		}
	}
	l.pos++ // the single white-space byte after ID
	for l.pos+2 <= len(l.data) {
		i := l.pos
		if l.data[i] == 'E' && l.data[i+1] == 'I' && (i == 0 || isPDFSpace(l.data[i-1])) &&
			(i+2 == len(l.data) || isPDFSpace(l.data[i+2]) || isPDFDelim(l.data[i+2])) {
			l.pos = i + 2
			return
		}
		l.pos++
	}
	l.pos = len(l.data)
}

// codeNumber reads a string of up to 4 bytes as a big-endian number.
func codeNumber(b []byte) uint32 {
	var v uint32
	for _, c := range b {
		v = v<<8 | uint32(c)
	}
	return v
}
