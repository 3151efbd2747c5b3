package corpus

import (
	"path/filepath"
	"strings"
)

// renderMan reads a man page (man(7) or mdoc(7) macros, gzipped or not)
// into Markdown: its sections as headings, its text with the roff escapes
// and requests taken out. The NAME line's description ("list directory
// contents") is the page's query.
func renderMan(path string) (*document, error) {
	src, err := readText(path)
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(strings.TrimSpace(src), ".so ") {
		return nil, nil // a page that only points at another one
	}
	title, body, name := stripRoff(src)
	if len(body) < minBody {
		return nil, nil
	}
	file := strings.TrimSuffix(filepath.Base(path), ".gz")
	if title == "" {
		title = file
	}
	d := &document{name: fileName(filepath.Base(filepath.Dir(path)), file)}
	d.body = []byte("# " + title + "\n\n" + body)
	if _, desc, ok := strings.Cut(name, " - "); ok {
		if q := queryText(desc); q != "" {
			d.queries = append(d.queries, q)
		}
	}
	return d, nil
}

// stripRoff returns a page's title (from .TH or .Dt), its text as Markdown
// and its NAME section's first line.
func stripRoff(src string) (title, body, name string) {
	var sb strings.Builder
	section := ""
	inDef := false // inside a macro definition (.de … ..)
	para := func() {
		if s := sb.String(); len(s) > 0 && !strings.HasSuffix(s, "\n\n") {
			sb.WriteString("\n\n")
		}
	}
	text := func(s string) {
		s = unescape(s)
		if strings.TrimSpace(s) == "" {
			return
		}
		if section == "NAME" && name == "" {
			name = strings.Join(strings.Fields(s), " ")
		} else if section == "NAME" && !strings.Contains(name, " - ") {
			name += " " + strings.Join(strings.Fields(s), " ")
		}
		// Markdown would read a leading '#', '>', '-' or '*' as syntax;
		// roff text means none of them.
		if t := strings.TrimLeft(s, " \t"); t != "" && strings.ContainsRune("#>*-+|=", rune(t[0])) {
			s = `\` + t
		} else {
			s = t
		}
		sb.WriteString(s)
		sb.WriteString("\n")
	}
	for line := range strings.Lines(src) {
		line = strings.TrimRight(line, "\r\n")
		if inDef {
			if strings.HasPrefix(line, "..") {
				inDef = false
			}
			continue
		}
		if line == "" {
			para()
			continue
		}
		if line[0] != '.' && line[0] != '\'' {
			text(line)
			continue
		}
		req, args := splitRequest(line[1:])
		switch req {
		case `\"`, "":
			// a comment, or an empty request
		case "de", "de1", "am", "ig":
			inDef = true
		case "TH", "Dt":
			if len(args) > 0 {
				title = strings.ToLower(args[0])
				if len(args) > 1 {
					title += "(" + args[1] + ")"
				}
			}
		case "SH", "Sh", "SS", "Ss":
			h := unescape(strings.Join(args, " "))
			section = strings.ToUpper(h)
			para()
			if req == "SS" || req == "Ss" {
				sb.WriteString("### " + h + "\n\n")
			} else {
				sb.WriteString("## " + h + "\n\n")
			}
		case "PP", "P", "LP", "sp", "br", "TP", "Pp", "Bl", "El", "Bd", "Ed", "nf", "fi":
			para()
		case "IP", "It", "HP":
			para()
			if len(args) > 0 {
				text(strings.Join(args, " "))
			}
		case "B", "I", "SM", "SB", "Nm", "Ar", "Fl", "Cm", "Pa", "Va", "Em", "Sy", "Li", "Xr", "Fn", "Ev", "Dv", "Er":
			text(strings.Join(args, " "))
		case "BR", "RB", "IR", "RI", "BI", "IB":
			// Alternating fonts: the words are run together.
			text(strings.Join(args, ""))
		case "Nd":
			text("- " + strings.Join(args, " "))
		default:
			// Every other request (.RS, .in, .ft, .if, .ds, .nr, …) sets
			// up layout and carries no text worth searching.
		}
	}
	return title, strings.TrimSpace(sb.String()) + "\n", name
}

// splitRequest splits a request line after its leading dot into the
// request's name and its arguments, double quotes grouping words.
func splitRequest(s string) (req string, args []string) {
	s = strings.TrimLeft(s, " \t")
	if strings.HasPrefix(s, `\"`) {
		return `\"`, nil
	}
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, nil
	}
	req, rest := s[:i], s[i+1:]
	for {
		rest = strings.TrimLeft(rest, " \t")
		if rest == "" || strings.HasPrefix(rest, `\"`) {
			return req, args
		}
		if rest[0] == '"' {
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				return req, append(args, rest[1:])
			}
			args = append(args, rest[1:1+end])
			rest = rest[2+end:]
			continue
		}
		j := strings.IndexAny(rest, " \t")
		if j < 0 {
			return req, append(args, rest)
		}
		args = append(args, rest[:j])
		rest = rest[j:]
	}
}

// glyphs are the named characters (\(xx, \[xx]) worth keeping as text.
var glyphs = map[string]string{
	"em": "—", "en": "–", "hy": "-", "mi": "-", "aq": "'", "dq": `"`, "lq": `"`, "rq": `"`,
	"oq": "'", "cq": "'", "bu": "•", "co": "©", "rg": "®", "tm": "™", "ga": "`", "ti": "~",
	"ha": "^", "rs": `\`, "ba": "|", "bv": "|", "<=": "≤", ">=": "≥", "->": "→", "<-": "←",
}

// unescape removes roff's escapes from a line of text: fonts and sizes
// dropped, named glyphs kept, a comment cut.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			sb.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case '"':
			return sb.String() // a comment to the end of the line
		case '-', '.', '\'', '`':
			sb.WriteByte(e)
		case 'e', '\\':
			sb.WriteByte('\\')
		case ' ', '~', '0':
			sb.WriteByte(' ')
		case '&', '|', '^', 'c', ':', '%', ',', '/', ')', 'd', 'u', 'p', 'r', 't':
			// zero-width marks and spacing hints
		case '(':
			if i+2 < len(s) {
				sb.WriteString(glyphs[s[i+1:i+3]])
				i += 2
			}
		case '[':
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				return sb.String()
			}
			sb.WriteString(glyphs[s[i+1:i+end]])
			i += end
		case 'f', 'F', '*', 'n', 'g', 'k', 'm', 'M', 'V', 'Y':
			// a font, a string, a register: its one-letter, (xx or [name]
			// argument goes with it
			i = skipArg(s, i+1) - 1
		case 's':
			// a size: \s+1, \s-2, \s0, \s(12, \s[12]
			j := i + 1
			if j < len(s) && (s[j] == '+' || s[j] == '-') {
				j++
			}
			if j < len(s) && (s[j] == '(' || s[j] == '[') {
				i = skipArg(s, j) - 1
				break
			}
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			i = j - 1
		case 'h', 'v', 'w', 'o', 'b', 'l', 'L', 'D', 'x', 'X', 'N', 'A', 'B', 'Z', 'R', 'S', 'H':
			// an escape with a quoted argument: \h'1n', \w'text'
			if i+1 < len(s) {
				q := s[i+1]
				if end := strings.IndexByte(s[i+2:], q); end >= 0 {
					i += 2 + end
				}
			}
		default:
			sb.WriteByte(e)
		}
	}
	return sb.String()
}

// skipArg returns the index after an escape's argument starting at i: one
// character, "(xx" or "[name]".
func skipArg(s string, i int) int {
	switch {
	case i >= len(s):
		return len(s)
	case s[i] == '(':
		return min(i+3, len(s))
	case s[i] == '[':
		if end := strings.IndexByte(s[i:], ']'); end >= 0 {
			return i + end + 1
		}
		return len(s)
	}
	return i + 1
}
