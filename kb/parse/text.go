package parse

import "strings"

// parseText reads plain text: paragraphs are separated by blank lines and
// keep their line breaks (addresses, verse, hard-wrapped prose).
func parseText(data []byte) (Document, error) {
	text, warnings := DecodeText(data)
	var b builder
	for _, p := range splitBlankLines(text) {
		b.paragraph(p)
	}
	doc := b.document()
	doc.Warnings = warnings
	return doc, nil
}

// splitBlankLines cuts text at lines that hold only white space.
func splitBlankLines(text string) []string {
	var parts []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			parts = append(parts, strings.Join(cur, "\n"))
			cur = cur[:0]
		}
	}
	for line := range strings.SplitSeq(text, "\n") {
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		cur = append(cur, line)
	}
	flush()
	return parts
}
