package data

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/moteur/moteur/kb/parse"
)

// ErrNoData is returned for a document with nothing to load: an empty
// file, or a workbook whose sheets are all empty (seed 000's explicit
// error).
var ErrNoData = errors.New("no data")

// sheet is one table read from a document: a header and rows of text.
type sheet struct {
	// name is the sheet's name in a workbook, "" for delimited text.
	name   string
	header []string
	rows   [][]string
}

// parsed is what a document holds before it becomes a table.
type parsed struct {
	name     string
	format   string
	workbook bool
	sheets   []sheet
	notes    []string
	// decimalComma allows "3,14" as a number: the delimiter is not a
	// comma (a French export).
	decimalComma bool
}

// parseDocument reads a CSV, TSV or XLSX document by its file name.
func parseDocument(name string, data []byte, maxBytes int64) (*parsed, error) {
	switch ext := strings.ToLower(filepath.Ext(name)); ext {
	case ".xlsx", ".xlsm":
		return parseXLSX(name, data, maxBytes)
	case ".tsv", ".tab":
		return parseDelimited(name, data, '\t')
	case ".csv", ".txt", "":
		return parseDelimited(name, data, 0)
	default:
		return nil, fmt.Errorf("%s is not a CSV, TSV or XLSX document (%s): the data tools cannot read it; use read_document", name, ext)
	}
}

// parseDelimited reads delimited text whose header is its first row; delim
// 0 means sniff it.
func parseDelimited(name string, data []byte, delim rune) (*parsed, error) {
	text, notes := parse.DecodeText(data)
	if delim == 0 {
		delim = parse.SniffDelimiter(text)
	}
	r := csv.NewReader(strings.NewReader(text))
	r.Comma = delim
	r.FieldsPerRecord = -1 // ragged rows are padded and reported, not refused
	r.LazyQuotes = true
	var records [][]string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: unreadable as delimited text: %w", name, err)
		}
		if !blank(rec) {
			records = append(records, rec)
		}
	}
	if len(records) == 0 {
		return nil, fmt.Errorf("%s: %w: the file has no rows", name, ErrNoData)
	}
	format := "CSV"
	if delim == '\t' {
		format = "TSV"
	}
	p := &parsed{name: name, format: format, notes: notes, decimalComma: delim != ','}
	p.sheets = []sheet{{header: records[0], rows: records[1:]}}
	if delim != ',' {
		p.notes = append(p.notes, fmt.Sprintf("delimiter: %q", delim))
	}
	return p, nil
}

// blank reports a row without any non-space cell.
func blank(row []string) bool {
	for _, c := range row {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}
