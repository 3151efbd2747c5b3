package data

import (
	"archive/zip"
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
)

// workbook builds an XLSX file; sheets maps a sheet name to its rows, in
// the order of names.
func workbook(t *testing.T, names []string, sheets map[string][][]any) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	dateStyle, err := f.NewStyle(&excelize.Style{NumFmt: 14})
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range names {
		if i == 0 {
			if err := f.SetSheetName("Sheet1", name); err != nil {
				t.Fatal(err)
			}
		} else if _, err := f.NewSheet(name); err != nil {
			t.Fatal(err)
		}
		for r, row := range sheets[name] {
			for c, v := range row {
				cell, _ := excelize.CoordinatesToCellName(c+1, r+1)
				if err := f.SetCellValue(name, cell, v); err != nil {
					t.Fatal(err)
				}
				if _, ok := v.(time.Time); ok {
					if err := f.SetCellStyle(name, cell, cell, dateStyle); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestExcelThreeSheetsMerged(t *testing.T) {
	h := newHarness(t, Config{})
	day := func(d int) time.Time { return time.Date(2024, 3, d, 0, 0, 0, 0, time.UTC) }
	data := workbook(t, []string{"Nord", "Sud", "Est"}, map[string][][]any{
		"Nord": {{"Région", "Montant", "Date"}, {"Lille", 100, day(1)}, {"Arras", 50.5, day(2)}},
		// Columns in another order, a blank row, and a column of its own.
		"Sud": {{"Montant", "Région", "Date", "Commentaire"}, {200, "Nice", day(3), "ok"}, {}, {300, "Nîmes", day(4), ""}},
		"Est": {{"Région", "Montant", "Date"}, {"Metz", 25, day(5)}},
	})
	h.docs.add("d1", "ventes.xlsx", data)
	schema := h.schemaOf("d1")
	for _, want := range []string{
		"5 rows, 5 columns", `"Nord" (2 rows), "Sud" (2 rows), "Est" (1 rows)`,
		"| __sheet_name | TEXT |", "| region | TEXT |", "| montant | REAL |", "| date | TEXT (ISO date) |", "| commentaire | TEXT | 1 |",
	} {
		if !strings.Contains(schema, want) {
			t.Errorf("schema lacks %q:\n%s", want, schema)
		}
	}
	out := h.sql("d1", "SELECT __sheet_name, SUM(montant) AS total FROM dataset GROUP BY __sheet_name ORDER BY total DESC")
	for _, want := range []string{"| Sud | 500.0 |", "| Nord | 150.5 |", "| Est | 25.0 |", "3 rows."} {
		if !strings.Contains(out, want) {
			t.Errorf("GROUP BY lacks %q:\n%s", want, out)
		}
	}
	if got := single(t, h.sql("d1", "SELECT date FROM dataset WHERE region = 'Nîmes'")); got != "2024-03-04" {
		t.Errorf("the date cell reads %s, want 2024-03-04", got)
	}
	if got := single(t, h.sql("d1", "SELECT COUNT(*) FROM dataset WHERE commentaire IS NULL")); got != "4" {
		t.Errorf("rows of sheets without the column: %s NULL, want 4", got)
	}
}

func TestExcelEmptySheetSkipped(t *testing.T) {
	h := newHarness(t, Config{})
	data := workbook(t, []string{"Vide", "Données"}, map[string][][]any{
		"Données": {{"a", "b"}, {1, 2}},
	})
	h.docs.add("d1", "x.xlsx", data)
	schema := h.schemaOf("d1")
	if !strings.Contains(schema, `empty sheets skipped: "Vide"`) || !strings.Contains(schema, "1 rows, 3 columns") {
		t.Errorf("empty sheet:\n%s", schema)
	}
	// A sheet with only zeros and booleans has content.
	data = workbook(t, []string{"Z"}, map[string][][]any{"Z": {{"n", "flag"}, {0, false}}})
	h.docs.add("d2", "z.xlsx", data)
	if schema := h.schemaOf("d2"); !strings.Contains(schema, "1 rows") {
		t.Errorf("zeros and booleans:\n%s", schema)
	}
}

func TestExcelWithoutDataIsAnExplicitError(t *testing.T) {
	h := newHarness(t, Config{})
	h.docs.add("d1", "rien.xlsx", workbook(t, []string{"A", "B"}, nil))
	r := h.call(h.schema, map[string]any{"knowledge_id": "d1"})
	if !r.IsError || !strings.Contains(r.Content, `no data: every sheet of the workbook is empty ("A", "B")`) {
		t.Errorf("workbook without data: %+v", r)
	}
	r = h.call(h.analysis, map[string]any{"knowledge_id": "d1", "sql": "SELECT 1"})
	if !r.IsError || !strings.Contains(r.Content, "no data") {
		t.Errorf("data_analysis on it: %+v", r)
	}
	h.docs.add("d2", "broken.xlsx", []byte("PK not really"))
	if r := h.call(h.schema, map[string]any{"knowledge_id": "d2"}); !r.IsError || !strings.Contains(r.Content, "not a readable workbook") {
		t.Errorf("broken workbook: %+v", r)
	}
}

// replacePart rewrites one part of a workbook's archive.
func replacePart(t *testing.T, data []byte, name, content string) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	found := false
	for _, f := range zr.File {
		w, err := zw.Create(f.Name)
		if err != nil {
			t.Fatal(err)
		}
		if f.Name == name {
			found = true
			_, err = w.Write([]byte(content))
		} else {
			var rc io.ReadCloser
			if rc, err = f.Open(); err == nil {
				_, err = io.Copy(w, rc)
				rc.Close()
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if !found {
		t.Fatalf("no part %s", name)
	}
	return b.Bytes()
}

func TestExcelUnreadableSheetSkippedWithANote(t *testing.T) {
	h := newHarness(t, Config{})
	data := workbook(t, []string{"Bon", "Cassé"}, map[string][][]any{
		"Bon":   {{"a", "b"}, {1, 2}},
		"Cassé": {{"a", "b"}, {3, 4}},
	})
	data = replacePart(t, data, "xl/worksheets/sheet2.xml", `<worksheet><sheetData><row r="1"><c r="A1"><v>1x</v></c></row></sheetData></worksheet>`)
	h.docs.add("d1", "x.xlsx", data)
	schema := h.schemaOf("d1")
	if !strings.Contains(schema, `sheet "Cassé": unreadable, skipped`) || !strings.Contains(schema, `number "1x"`) || !strings.Contains(schema, "1 rows") {
		t.Errorf("unreadable sheet:\n%s", schema)
	}
}
