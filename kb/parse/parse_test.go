package parse

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

func mustParse(t *testing.T, name string, data []byte) Document {
	t.Helper()
	doc, err := Bytes(name, data)
	if err != nil {
		t.Fatalf("Bytes(%q): %v", name, err)
	}
	return doc
}

// kinds renders blocks compactly: "heading:1:Title", "paragraph:text",
// "table:header|row|row", with the heading path after " @ ".
func render(blocks []Block) []string {
	var out []string
	for _, b := range blocks {
		var s string
		switch b.Kind {
		case Heading:
			s = "heading:" + string(rune('0'+b.Level)) + ":" + b.Text
		case Table:
			s = "table:" + strings.Join(append([]string{b.Header}, b.Rows...), "/")
		default:
			s = string(b.Kind) + ":" + b.Text
		}
		if len(b.Headings) > 0 {
			s += " @ " + strings.Join(b.Headings, " > ")
		}
		out = append(out, s)
	}
	return out
}

func assertBlocks(t *testing.T, doc Document, want []string) {
	t.Helper()
	if got := render(doc.Blocks); !reflect.DeepEqual(got, want) {
		t.Errorf("blocks:\n got %q\nwant %q", got, want)
	}
}

func TestTextParagraphsSplitOnBlankLines(t *testing.T) {
	doc := mustParse(t, "notes.txt", []byte("First  line\r\nstill   first paragraph.\r\n\r\n  \r\nSecond\tparagraph.\n\n\n"))
	if doc.Format != "text" || doc.Title != "notes" {
		t.Errorf("format %q title %q, want text / notes", doc.Format, doc.Title)
	}
	assertBlocks(t, doc, []string{
		"paragraph:First line\nstill first paragraph.",
		"paragraph:Second paragraph.",
	})
}

func TestTextIsNFC(t *testing.T) {
	doc := mustParse(t, "a.txt", []byte("cafe\u0301")) // e + combining acute
	if got := doc.Blocks[0].Text; got != "caf\u00e9" {
		t.Errorf("text %q, want NFC %q", got, "caf\u00e9")
	}
}

const sampleMarkdown = "# Guide\n\nIntro  with *emphasis* and a [link](https://x.test) and `code  span`.\n\n" +
	"## Install\n\nRun:\n\n```sh\ngo install  ./...\n    indented\n```\n\n" +
	"### Linux\n\n- apt install x\n- second item\n  - nested item\n\n1. one\n2. two\n\n" +
	"## Usage\n\n| Flag | Meaning |\n|------|---------|\n| `-v` | verbose \\| loud |\n| -q | quiet |\n\n" +
	"> Quoted &amp; escaped \\*text\\*\n\n# Appendix\n\nEnd.\n"

func TestMarkdownStructure(t *testing.T) {
	doc := mustParse(t, "guide.md", []byte(sampleMarkdown))
	if doc.Format != "markdown" || doc.Title != "Guide" {
		t.Errorf("format %q title %q, want markdown / Guide", doc.Format, doc.Title)
	}
	assertBlocks(t, doc, []string{
		"heading:1:Guide",
		"paragraph:Intro with emphasis and a link and code span. @ Guide",
		"heading:2:Install @ Guide",
		"paragraph:Run: @ Guide > Install",
		"code:go install  ./...\n    indented @ Guide > Install",
		"heading:3:Linux @ Guide > Install",
		"paragraph:- apt install x\n- second item\n  - nested item @ Guide > Install > Linux",
		"paragraph:1. one\n2. two @ Guide > Install > Linux",
		"heading:2:Usage @ Guide",
		"table:| Flag | Meaning |/| -v | verbose \\| loud |/| -q | quiet | @ Guide > Usage",
		"paragraph:Quoted & escaped *text* @ Guide > Usage",
		"heading:1:Appendix",
		"paragraph:End. @ Appendix",
	})
}

func TestHTMLConvertedThroughMarkdown(t *testing.T) {
	page := `<!DOCTYPE html><html><head><title>Price  list</title><style>body{color:red}</style>
<script>alert("x")</script></head><body>
<h1>Prices</h1><p>All prices   in EUR.</p><script>var hidden = 1;</script>
<h2>Fruit</h2>
<table><thead><tr><th>Name</th><th>Price</th></tr></thead>
<tbody><tr><td>Apple</td><td>1.20</td></tr><tr><td>Pear</td><td>0.90</td></tr></tbody></table>
<ul><li>Fresh</li><li>Local</li></ul>
</body></html>`
	doc := mustParse(t, "prices.html", []byte(page))
	if doc.Format != "html" || doc.Title != "Price list" {
		t.Errorf("format %q title %q, want html / Price list", doc.Format, doc.Title)
	}
	assertBlocks(t, doc, []string{
		"heading:1:Prices",
		"paragraph:All prices in EUR. @ Prices",
		"heading:2:Fruit @ Prices",
		"table:| Name | Price |/| Apple | 1.20 |/| Pear | 0.90 | @ Prices > Fruit",
		"paragraph:- Fresh\n- Local @ Prices > Fruit",
	})
	for _, b := range doc.Blocks {
		if strings.Contains(b.Text, "alert") || strings.Contains(b.Text, "hidden") || strings.Contains(b.Text, "color") {
			t.Errorf("script or style leaked into %q", b.Text)
		}
	}
}

func TestPDFTextExtracted(t *testing.T) {
	doc := mustParse(t, "report.pdf", helloPDF())
	if doc.Format != "pdf" || doc.Title != "Quarterly Report" || doc.Meta["pages"] != "1" {
		t.Errorf("format %q title %q pages %q", doc.Format, doc.Title, doc.Meta["pages"])
	}
	assertBlocks(t, doc, []string{
		"paragraph:Hello PDF world\nsecond line",
		"paragraph:A paragraph lower on the page.",
	})
}

func TestPDFVersion2HeaderAccepted(t *testing.T) {
	data := helloPDF()
	copy(data, "%PDF-2.0")
	doc := mustParse(t, "v2.pdf", data)
	if len(doc.Blocks) != 2 {
		t.Errorf("PDF 2.0: %d blocks, want 2", len(doc.Blocks))
	}
}

func TestPDFPageWithoutTextWarns(t *testing.T) {
	data := pdfObjects([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 6 0 R] /Count 2 >>",
		"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		"<< /Length 32 >>\nstream\nBT /F1 12 Tf 72 700 Td (Hi) Tj ET\nendstream",
		"<< /Type /Page /Parent 2 0 R >>",
	}, "")
	doc := mustParse(t, "scan.pdf", data)
	if doc.Meta["pages"] != "2" || !slices.Contains(doc.Warnings, "page 2: no text") {
		t.Errorf("pages %q warnings %q, want 2 pages and a page 2 warning", doc.Meta["pages"], doc.Warnings)
	}
}

func TestDOCXStructure(t *testing.T) {
	doc := mustParse(t, "review.docx", sampleDOCX(t))
	if doc.Format != "docx" || doc.Title != "Review 2025" {
		t.Errorf("format %q title %q, want docx / Review 2025", doc.Format, doc.Title)
	}
	assertBlocks(t, doc, []string{
		"heading:1:Annual Review",
		"heading:1:Results",
		"paragraph:Revenue grew strongly. @ Results",
		"table:| Region | Sales |/| North | 120 |/| South | 95 | @ Results",
		"heading:2:Details @ Results",
		"paragraph:- first item @ Results > Details",
		"paragraph:left right\nnext line @ Results > Details",
	})
}

func TestCSVSemicolon(t *testing.T) {
	csv := "name;city;note\nAda;\"Paris; France\";first\nBob;Lyon\n\n;;\n"
	doc := mustParse(t, "people.csv", []byte(csv))
	if doc.Format != "csv" || doc.Meta["delimiter"] != ";" {
		t.Errorf("format %q delimiter %q", doc.Format, doc.Meta["delimiter"])
	}
	assertBlocks(t, doc, []string{
		"table:| name | city | note |/| Ada | Paris; France | first |/| Bob | Lyon |  |",
	})
}

func TestTSV(t *testing.T) {
	doc := mustParse(t, "t.tsv", []byte("a\tb\n1,5\t2\n"))
	assertBlocks(t, doc, []string{"table:| a | b |/| 1,5 | 2 |"})
}

func TestXLSXSheets(t *testing.T) {
	doc := mustParse(t, "book.xlsx", sampleXLSX(t))
	if doc.Format != "xlsx" || doc.Title != "book" || doc.Meta["sheets"] != "Sales, Empty, Costs" {
		t.Errorf("format %q title %q sheets %q", doc.Format, doc.Title, doc.Meta["sheets"])
	}
	assertBlocks(t, doc, []string{
		"heading:1:Sales",
		"table:| Region | Q1 | Q2 |/| North | 10 | 12 |/| South | 7 | 9 | @ Sales",
		"heading:1:Costs",
		"table:| Item | Amount |/| Rent \\| office | 1500 | @ Costs",
	})
	if !slices.Contains(doc.Warnings, `sheet "Empty": empty`) {
		t.Errorf("warnings %q, want the empty sheet reported", doc.Warnings)
	}
}

func TestJSONArrayElementsAreParagraphs(t *testing.T) {
	doc := mustParse(t, "items.json", []byte(`[{"id":1,"name":"a"}, {"id":2,"tags":["x","y"]}, "plain"]`))
	assertBlocks(t, doc, []string{
		"paragraph:{\n  \"id\": 1,\n  \"name\": \"a\"\n}",
		"paragraph:{\n  \"id\": 2,\n  \"tags\": [\n    \"x\",\n    \"y\"\n  ]\n}",
		"paragraph:\"plain\"",
	})
}

func TestJSONObjectMembersKeepOrder(t *testing.T) {
	doc := mustParse(t, "conf.json", []byte(`{"zeta": 1, "alpha": {"b": true}}`))
	assertBlocks(t, doc, []string{
		"paragraph:\"zeta\": 1",
		"paragraph:\"alpha\": {\n  \"b\": true\n}",
	})
}

func TestJSONLLines(t *testing.T) {
	doc := mustParse(t, "log.jsonl", []byte("{\"a\":1}\n\n{\"b\":2}\n{\"broken\n"))
	assertBlocks(t, doc, []string{"paragraph:{\n  \"a\": 1\n}", "paragraph:{\n  \"b\": 2\n}"})
	if len(doc.Warnings) != 1 || !strings.HasPrefix(doc.Warnings[0], "line 4: invalid JSON") {
		t.Errorf("warnings %q, want one about line 4", doc.Warnings)
	}
}

const sampleGo = `package demo

import "fmt"

// Hello greets.
func Hello(name string) {
	msg := "hi " + name

	fmt.Println(msg)
}

type T struct {
	A int
}
`

func TestCodeSplitBetweenTopLevelDeclarations(t *testing.T) {
	doc := mustParse(t, "demo.go", []byte(sampleGo))
	if doc.Format != "code" || doc.Meta["language"] != "go" {
		t.Errorf("format %q language %q", doc.Format, doc.Meta["language"])
	}
	assertBlocks(t, doc, []string{
		"code:package demo",
		"code:import \"fmt\"",
		"code:// Hello greets.\nfunc Hello(name string) {\n\tmsg := \"hi \" + name\n\n\tfmt.Println(msg)\n}",
		"code:type T struct {\n\tA int\n}",
	})
}

func TestSniffWithoutExtension(t *testing.T) {
	cases := []struct {
		name   string
		data   []byte
		format string
	}{
		{"page", []byte("  <!doctype html><html><body><p>Hi</p></body></html>"), "html"},
		{"data", []byte(`{"a": 1}`), "json"},
		{"braces", []byte(`{not json`), "text"},
		{"report", helloPDF(), "pdf"},
		{"letter", sampleDOCX(t), "docx"},
		{"book", sampleXLSX(t), "xlsx"},
		{"notes.unknown", []byte("just text"), "text"},
		{"misnamed.txt", helloPDF(), "pdf"}, // container bytes beat a text extension
	}
	for _, c := range cases {
		doc := mustParse(t, c.name, c.data)
		if doc.Format != c.format {
			t.Errorf("%s: format %q, want %q", c.name, doc.Format, c.format)
		}
	}
}

func TestFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "readme.md")
	if err := os.WriteFile(path, []byte("# Read me\n\nBody."), 0o600); err != nil {
		t.Fatal(err)
	}
	doc, err := File(path, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Title != "Read me" || len(doc.Blocks) != 2 {
		t.Errorf("title %q, %d blocks", doc.Title, len(doc.Blocks))
	}
}

func TestFormats(t *testing.T) {
	f := Formats()
	if !slices.IsSorted(f) {
		t.Errorf("Formats not sorted: %q", f)
	}
	for _, ext := range []string{".txt", ".md", ".html", ".pdf", ".docx", ".csv", ".tsv", ".xlsx", ".json", ".jsonl", ".go", ".py", ".yaml"} {
		if !slices.Contains(f, ext) {
			t.Errorf("Formats lacks %s", ext)
		}
	}
}

// TestConcurrentParsing runs every format at once; with -race it checks
// that shared parsers (goldmark, converters) hold no shared mutable state.
func TestConcurrentParsing(t *testing.T) {
	inputs := map[string][]byte{
		"a.md": []byte(sampleMarkdown), "a.html": []byte("<h1>T</h1><p>x</p>"), "a.pdf": helloPDF(),
		"a.docx": sampleDOCX(t), "a.xlsx": sampleXLSX(t), "a.csv": []byte("a,b\n1,2"), "a.go": []byte(sampleGo),
	}
	want := map[string]Document{}
	for name, data := range inputs {
		want[name] = mustParse(t, name, data)
	}
	var wg sync.WaitGroup
	for range 4 {
		for name, data := range inputs {
			wg.Go(func() {
				got, err := Bytes(name, data)
				if err != nil || !reflect.DeepEqual(got, want[name]) {
					t.Errorf("%s: concurrent parse differs (err %v)", name, err)
				}
			})
		}
	}
	wg.Wait()
}

// TestNoEmptyBlocks checks the builder's promise over all sample formats.
func TestNoEmptyBlocks(t *testing.T) {
	for name, data := range map[string][]byte{
		"a.md": []byte("#\n\n   \n\n```\n\n```\n\n| a |\n|---|\n|   |\n\n- \n"), "a.txt": []byte("x\n\n \t \n\ny"),
		"a.docx": sampleDOCX(t), "a.json": []byte(`[{}, [], ""]`),
	} {
		doc, err := Bytes(name, data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkBlocks(t, doc)
	}
}

func checkBlocks(t testing.TB, doc Document) {
	t.Helper()
	if len(doc.Blocks) == 0 {
		t.Fatalf("document without blocks and without error")
	}
	for i, b := range doc.Blocks {
		empty := strings.TrimSpace(b.Text) == ""
		if b.Kind == Table {
			empty = b.Text != "" || b.Header == "" && len(b.Rows) == 0
		}
		if empty {
			j, _ := json.Marshal(b)
			t.Fatalf("block %d is empty: %s", i, j)
		}
		if b.Kind == Heading && b.Level < 1 {
			t.Fatalf("heading %q has level %d", b.Text, b.Level)
		}
	}
}

func TestDeepHTMLFallsBackToText(t *testing.T) {
	page := strings.Repeat("<div>", 1000) + "deep text" + strings.Repeat("</div>", 1000)
	doc := mustParse(t, "deep.html", []byte(page))
	assertBlocks(t, doc, []string{"paragraph:deep text"})
	if len(doc.Warnings) != 1 || !strings.Contains(doc.Warnings[0], "without structure") {
		t.Errorf("warnings %q", doc.Warnings)
	}
}

func TestDeepJSONPrintedCompact(t *testing.T) {
	deep := strings.Repeat("[", 40) + "1" + strings.Repeat("]", 40)
	doc := mustParse(t, "deep.json", []byte(`[`+deep+`, {"a": [1]}]`))
	assertBlocks(t, doc, []string{"paragraph:" + deep, "paragraph:{\n  \"a\": [\n    1\n  ]\n}"})
}
