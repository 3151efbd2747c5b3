// Package frontmatter splits a Markdown file with a YAML front matter (a
// SKILL.md, a sub-agent file) into its header, decoded, and its body, with
// errors that name the line of the file.
package frontmatter

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/moteur/moteur/strictyaml"
)

// ErrNone: the file does not start with a front matter (a line "---").
var ErrNone = errors.New("no front matter: the file must start with a line \"---\", the YAML header, and a line \"---\"")

// Doc is a file split at its front matter.
type Doc struct {
	// Fields are the header's keys, every one kept (the callers check the
	// ones they know and keep the others).
	Fields map[string]any
	// Body is what follows the closing "---", and BodyLine its first line
	// in the file (1-based).
	Body     string
	BodyLine int
}

// Parse splits data. A file without a front matter is ErrNone; a header that
// does not close, is not YAML, or is not a mapping is a *strictyaml.Error
// whose Line is the file's.
func Parse(data []byte) (Doc, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	first, rest, ok := cutLine(data)
	if !ok || string(bytes.TrimRight(first, " \t\r")) != "---" {
		return Doc{}, ErrNone
	}
	header, line := []byte(nil), 2
	for {
		l, next, more := cutLine(rest)
		if string(bytes.TrimRight(l, " \t\r")) == "---" {
			doc := Doc{Body: string(next), BodyLine: line + 1}
			fields, err := decode(header)
			doc.Fields = fields
			return doc, err
		}
		if !more {
			return Doc{}, &strictyaml.Error{Line: 1, Msg: "the front matter opened at line 1 never closes (no second \"---\" line)"}
		}
		header = append(header, l...)
		header = append(header, '\n')
		rest, line = next, line+1
	}
}

// cutLine cuts data after its first line; more is false when data holds
// no line end (the last line, or nothing).
func cutLine(data []byte) (line, rest []byte, more bool) {
	if len(data) == 0 {
		return nil, nil, false
	}
	line, rest, more = bytes.Cut(data, []byte{'\n'})
	return line, rest, more || len(line) > 0
}

// decode reads the header as a YAML mapping (duplicate keys refused);
// lines are the file's (the header starts at line 2).
func decode(header []byte) (map[string]any, error) {
	fields := map[string]any{}
	if _, err := strictyaml.Decode(header, &fields); err != nil {
		var se *strictyaml.Error
		if errors.As(err, &se) {
			shifted := *se
			if shifted.Line > 0 {
				shifted.Line++
			}
			shifted.Msg = "front matter: " + shifted.Msg
			return nil, &shifted
		}
		return nil, fmt.Errorf("front matter: %w", err)
	}
	return fields, nil
}
