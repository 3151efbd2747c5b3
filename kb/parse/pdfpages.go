package parse

import (
	"fmt"
	"strconv"
	"strings"
)

// MetaPageBlocks is the Document.Meta key under which a paged format
// (PDF) records where each page starts: the index of its first block,
// one number per page, space-separated. BlockPages reads it.
const MetaPageBlocks = "page_blocks"

// PageProgress is told, while a document is parsed, how many of its
// pages are done out of how many.
type PageProgress func(done, total int)

func encodePageStarts(starts []int) string {
	var sb strings.Builder
	for i, s := range starts {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(strconv.Itoa(s))
	}
	return sb.String()
}

// BlockPages returns the page (1-based) of each block of d, or nil when
// d does not record pages.
func (d Document) BlockPages() []int {
	v, ok := d.Meta[MetaPageBlocks]
	if !ok {
		return nil
	}
	out := make([]int, len(d.Blocks))
	page, next := 0, 0 // the page in force and the index in the list
	fields := strings.Fields(v)
	for i := range out {
		for next < len(fields) {
			start, err := strconv.Atoi(fields[next])
			if err != nil || start > i {
				break
			}
			page, next = next+1, next+1
		}
		out[i] = max(page, 1)
	}
	return out
}

// BytesWithProgress is Bytes, with progress told after each page of a
// paged document (PDF); other formats parse as with Bytes.
func BytesWithProgress(name string, data []byte, progress PageProgress) (doc Document, err error) {
	if progress == nil || !isPDFInput(name, data) {
		return Bytes(name, data)
	}
	defer func() {
		if r := recover(); r != nil {
			doc, err = Document{}, fmt.Errorf("parse: %s: %w: parser failure: %v", name, ErrCorrupt, r)
		}
	}()
	doc, err = parsePDFProgress(data, progress)
	if err != nil {
		return Document{}, fmt.Errorf("parse: %s: %w", name, err)
	}
	doc.Format = pdfFormat.name
	if doc.Title == "" {
		doc.Title = baseTitle(name)
	}
	return doc, nil
}

// isPDFInput reports the input Bytes would read as a PDF.
func isPDFInput(name string, data []byte) bool {
	f, _, err := detect(name, data)
	return err == nil && f == pdfFormat.name
}
