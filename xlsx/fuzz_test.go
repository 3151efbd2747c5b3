package xlsx

import (
	"errors"
	"testing"
)

// FuzzRead feeds damaged workbooks to Read: every input gets a workbook or
// an error of the package's kinds, never a panic, and the cell bound holds.
func FuzzRead(f *testing.F) {
	f.Add(build(f, sampleParts()...))
	f.Add([]byte("PK\x03\x04"))
	f.Add(build(f, "xl/workbook.xml", `<workbook><sheets><sheet name="a" id="r"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels", rels("r", "worksheet", "s.xml"), "xl/s.xml", `<sheetData><row><c r="B2"><v>1</v></c></row></sheetData>`))
	lim := Limits{Unzipped: 1 << 20, Part: 512 << 10, Cells: 10000}
	f.Fuzz(func(t *testing.T, data []byte) {
		wb, err := Read(data, lim)
		if err != nil {
			if !errors.Is(err, ErrNotWorkbook) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("error of no known kind: %v", err)
			}
			return
		}
		cells := 0
		for _, s := range wb.Sheets {
			for _, r := range s.Rows {
				cells += len(r.Cells)
			}
			_ = s.Texts(wb.Date1904)
		}
		if cells > lim.Cells {
			t.Fatalf("%d cells read, bound %d", cells, lim.Cells)
		}
	})
}
