package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	east "github.com/yuin/goldmark/extension/ast"
)

// table renders a Markdown table in columns separated by a bar, the
// header row in bold above a rule. Columns wider than the room are
// narrowed, widest first, and their cells wrapped.
func (r *mdRenderer) table(n *east.Table, width int) []string {
	var rows [][][]mdSeg
	var header []bool
	for row := n.FirstChild(); row != nil; row = row.NextSibling() {
		_, isHead := row.(*east.TableHeader)
		var cells [][]mdSeg
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			var f mdFlags
			if isHead {
				f = mdStrong
			}
			cells = append(cells, r.inline(c, f, nil))
		}
		rows = append(rows, cells)
		header = append(header, isHead)
	}
	cols := len(n.Alignments)
	for _, cells := range rows {
		cols = max(cols, len(cells))
	}
	if cols == 0 {
		return nil
	}
	if 4*cols-3 > width {
		return r.records(rows, header, width)
	}
	sep, cross, rule := " │ ", "─┼─", "─"
	if r.th.ascii {
		sep, cross, rule = " | ", "-|-", "-"
	}
	// Natural widths: each cell on one line.
	widths := make([]int, cols)
	for _, cells := range rows {
		for i, c := range cells {
			for _, l := range wrapSegs(c, 1<<20, r.th) {
				widths[i] = max(widths[i], ansi.StringWidth(l))
			}
		}
	}
	fitColumns(widths, max(width-3*(cols-1), cols))
	var out []string
	for ri, cells := range rows {
		wrapped := make([][]string, cols)
		height := 1
		for i := range cols {
			if i < len(cells) {
				wrapped[i] = wrapSegs(cells[i], widths[i], r.th)
			}
			height = max(height, len(wrapped[i]))
		}
		for li := range height {
			var sb strings.Builder
			for i := range cols {
				if i > 0 {
					sb.WriteString(sep)
				}
				var cell string
				if li < len(wrapped[i]) {
					cell = wrapped[i][li]
				}
				var align east.Alignment
				if i < len(n.Alignments) {
					align = n.Alignments[i]
				}
				sb.WriteString(padCell(cell, widths[i], align))
			}
			out = append(out, strings.TrimRight(sb.String(), " "))
		}
		if header[ri] {
			parts := make([]string, cols)
			for i, w := range widths {
				parts[i] = strings.Repeat(rule, w)
			}
			out = append(out, r.th.render(mdFaint, strings.Join(parts, cross)))
		}
	}
	return out
}

// padCell pads a rendered cell to w cells as aligned.
func padCell(cell string, w int, align east.Alignment) string {
	gap := max(w-ansi.StringWidth(cell), 0)
	switch align {
	case east.AlignRight:
		return strings.Repeat(" ", gap) + cell
	case east.AlignCenter:
		return strings.Repeat(" ", gap/2) + cell + strings.Repeat(" ", gap-gap/2)
	}
	return cell + strings.Repeat(" ", gap)
}

// fitColumns narrows the widest columns until they fit in room cells:
// every column wider than a cap is cut to it, the cap being the largest
// that fits (found by bisection, so a table of thousands of columns costs
// no more than a few passes). A column keeps at least one cell.
func fitColumns(widths []int, room int) {
	sum := func(limit int) int {
		t := 0
		for _, w := range widths {
			t += min(w, limit)
		}
		return t
	}
	hi := 0
	for _, w := range widths {
		hi = max(hi, w)
	}
	if sum(hi) <= room {
		return
	}
	lo := 1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if sum(mid) <= room {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	// The cap leaves some room unused: the columns it cut take one more
	// cell each, left to right, while room remains.
	left := room - sum(lo)
	for i, w := range widths {
		widths[i] = min(w, lo)
		if w > lo && left > 0 {
			widths[i]++
			left--
		}
	}
}

// records lays out a table too wide for columns of even one cell: each
// row as its lines "header: value", a blank line between rows.
func (r *mdRenderer) records(rows [][][]mdSeg, header []bool, width int) []string {
	var head [][]mdSeg
	if len(rows) > 0 && header[0] {
		head, rows = rows[0], rows[1:]
	}
	var out []string
	for ri, cells := range rows {
		if ri > 0 {
			out = append(out, "")
		}
		for i, c := range cells {
			var line []mdSeg
			if i < len(head) {
				line = append(line, head[i]...)
				line = append(line, mdSeg{text: ": ", f: mdStrong})
			}
			out = append(out, wrapSegs(append(line, c...), width, r.th)...)
		}
	}
	return out
}
