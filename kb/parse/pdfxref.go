package parse

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
)

// The PDF library sizes its cross-reference table from numbers the file
// gives (/Size, /Index, subsection headers) before checking them: a
// mutated "/Size 9999999999" makes it allocate terabytes, an out-of-memory
// crash no recover catches. checkXrefSizes refuses such numbers first.
var (
	sizeEntry   = regexp.MustCompile(`/Size\s+(\d+)`)
	indexEntry  = regexp.MustCompile(`/Index\s*\[([\d\s]*)\]`)
	xrefSection = regexp.MustCompile(`(?m)^\s*(\d+)\s+(\d+)\s*$`)
)

// maxXrefObjects is how many objects a file of n bytes may claim: even
// packed in compressed object streams an object takes bytes of its own.
func maxXrefObjects(n int) int64 { return int64(n)/8 + 1<<16 }

func checkXrefSizes(data []byte) error {
	limit := maxXrefObjects(len(data))
	tooMany := func(what string, v int64) error {
		return fmt.Errorf("%w PDF: the cross-reference data claims %s %d objects, more than a file of %s can hold", ErrCorrupt, what, v, humanBytes(int64(len(data))))
	}
	for _, m := range sizeEntry.FindAllSubmatch(data, -1) {
		if v := xrefNumber(m[1]); v > limit {
			return tooMany("/Size", v)
		}
	}
	for _, m := range indexEntry.FindAllSubmatch(data, -1) {
		f := bytes.Fields(m[1])
		for i := 0; i+1 < len(f); i += 2 {
			if v := xrefNumber(f[i]) + xrefNumber(f[i+1]); v > limit {
				return tooMany("/Index", v)
			}
		}
	}
	for rest := data; ; {
		at := bytes.Index(rest, []byte("xref"))
		if at < 0 {
			return nil
		}
		rest = rest[at+4:]
		table := rest
		if end := bytes.Index(table, []byte("trailer")); end >= 0 {
			table = table[:end]
		}
		for _, m := range xrefSection.FindAllSubmatch(table, -1) {
			if v := xrefNumber(m[1]) + xrefNumber(m[2]); v > limit {
				return tooMany("a subsection of", v)
			}
		}
	}
}

// xrefNumber reads a non-negative decimal; one too long to hold counts
// as huge.
func xrefNumber(b []byte) int64 {
	v, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return 1 << 62
	}
	return v
}
