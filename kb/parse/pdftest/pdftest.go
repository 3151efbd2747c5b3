// Package pdftest builds small PDF files for tests: the objects given,
// numbered from 1, with a correct cross-reference table.
package pdftest

import (
	"bytes"
	"fmt"
)

// Objects assembles a PDF from object bodies (object i+1 is objs[i]),
// computing the xref offsets; trailerExtra is added to the trailer
// dictionary (after /Size and /Root 1 0 R).
func Objects(objs []string, trailerExtra string) []byte {
	var buf bytes.Buffer
	buf.WriteString("%PDF-1.4\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = buf.Len()
		fmt.Fprintf(&buf, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := buf.Len()
	fmt.Fprintf(&buf, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&buf, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&buf, "trailer\n<< /Size %d /Root 1 0 R %s >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, trailerExtra, xref)
	return buf.Bytes()
}
