package data

import (
	"fmt"
	"strings"
)

// column is one column of the table dataset.
type column struct {
	name string
	// headers are the headers it was named from, as the document wrote
	// them (one per sheet that has it).
	headers []string
	kind    kind
	infer   inference
	nonNull int
	samples []string
}

// frame is a document laid out as one table: the sheets' columns merged
// by name, each sheet's cells mapped onto them.
type frame struct {
	doc     *parsed
	columns []column
	// maps[s][j] is the column of cell j of sheet s.
	maps  [][]int
	notes []string
}

// newFrame names the columns, merges the sheets and infers the types.
func newFrame(p *parsed) *frame {
	f := &frame{doc: p, notes: append([]string(nil), p.notes...)}
	index := map[string]int{}
	add := func(name, header string) int {
		if i, ok := index[name]; ok {
			f.columns[i].headers = appendNew(f.columns[i].headers, header)
			return i
		}
		index[name] = len(f.columns)
		f.columns = append(f.columns, column{name: name, headers: []string{header}, infer: inference{decimalComma: p.decimalComma}})
		return len(f.columns) - 1
	}
	if p.workbook {
		add(SheetColumn, "")
	}
	for _, s := range p.sheets {
		width := len(s.header)
		longer, shorter, firstLonger, firstShorter := 0, 0, 0, 0
		for i, r := range s.rows {
			switch {
			case len(r) > len(s.header):
				longer++
				width = max(width, len(r))
				if firstLonger == 0 {
					firstLonger = i + 1
				}
			case len(r) < len(s.header):
				shorter++
				if firstShorter == 0 {
					firstShorter = i + 1
				}
			}
		}
		names, m := newNamer(), make([]int, width)
		for j := range width {
			h := ""
			if j < len(s.header) {
				h = strings.TrimSpace(s.header[j])
			}
			m[j] = add(names.name(h, j+1), h)
		}
		f.maps = append(f.maps, m)
		f.noteRagged(s, longer, firstLonger, shorter, firstShorter, width)
	}
	f.infer()
	return f
}

// noteRagged reports rows whose number of cells is not the header's.
func (f *frame) noteRagged(s sheet, longer, firstLonger, shorter, firstShorter, width int) {
	where := ""
	if s.name != "" {
		where = fmt.Sprintf("sheet %q: ", s.name)
	}
	if longer > 0 {
		f.notes = append(f.notes, fmt.Sprintf("%s%d rows have more cells than the %d headers (first: data row %d); the extra cells are in columns %d to %d, named column_N",
			where, longer, len(s.header), firstLonger, len(s.header)+1, width))
	}
	if shorter > 0 {
		f.notes = append(f.notes, fmt.Sprintf("%s%d rows have fewer cells than the %d headers (first: data row %d); the missing cells are NULL",
			where, shorter, len(s.header), firstShorter))
	}
}

// infer decides each column's kind from every value it holds.
func (f *frame) infer() {
	for si, s := range f.doc.sheets {
		m := f.maps[si]
		for _, r := range s.rows {
			for j, v := range r {
				f.columns[m[j]].infer.observe(v)
			}
		}
	}
	for i := range f.columns {
		c := &f.columns[i]
		c.kind = c.infer.kind()
		if c.name == SheetColumn {
			c.kind = kindText
		}
	}
}

// rows calls emit with each row's values, in column order, sheet after
// sheet; the slice is reused between calls.
func (f *frame) rows(emit func([]any) error) error {
	vals := make([]any, len(f.columns))
	for si, s := range f.doc.sheets {
		m := f.maps[si]
		for _, r := range s.rows {
			clear(vals)
			if f.doc.workbook {
				vals[0] = s.name
			}
			for j, v := range r {
				c := &f.columns[m[j]]
				vals[m[j]] = c.infer.convert(c.kind, v)
			}
			for i, v := range vals {
				f.columns[i].see(v)
			}
			if err := emit(vals); err != nil {
				return err
			}
		}
	}
	return nil
}

// see counts a value and keeps the first few distinct ones as samples.
func (c *column) see(v any) {
	if v == nil {
		return
	}
	c.nonNull++
	// Samples come from the first rows: looking further costs a
	// formatting per cell for nothing.
	if len(c.samples) == 3 || c.nonNull > 1000 {
		return
	}
	s := fmt.Sprint(v)
	for _, have := range c.samples {
		if have == s {
			return
		}
	}
	c.samples = append(c.samples, s)
}

// count is the number of rows of the table.
func (f *frame) count() int {
	n := 0
	for _, s := range f.doc.sheets {
		n += len(s.rows)
	}
	return n
}

func appendNew(list []string, s string) []string {
	for _, have := range list {
		if have == s {
			return list
		}
	}
	return append(list, s)
}
