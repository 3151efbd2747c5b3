package web

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"

	readability "codeberg.org/readeck/go-readability/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"

	"github.com/moteur/moteur/kb/parse"
)

// page is a page turned into text.
type page struct {
	Title  string
	Format string // "markdown" or "text"
	Text   string
}

// minArticleRunes is the least main content worth keeping: a page where
// readability finds less (a search form, an app shell) is converted whole.
const minArticleRunes = 140

// convert turns a body into text by its media type, its bytes deciding
// when the type is missing or generic: HTML to Markdown (main content
// first), PDF and text through kb/parse; anything else is refused.
func convert(u *url.URL, contentType string, data []byte) (page, error) {
	mt, _, _ := mime.ParseMediaType(contentType)
	mt = strings.ToLower(mt)
	sniffed, _, _ := mime.ParseMediaType(http.DetectContentType(data))
	switch {
	case bytes.HasPrefix(data, []byte("%PDF-")) || mt == "application/pdf":
		return viaParse("page.pdf", data, "text")
	case isHTML(mt) || (isGeneric(mt) && sniffed == "text/html"):
		return convertHTML(u, contentType, data)
	case isText(mt) || (isGeneric(mt) && sniffed == "text/plain"):
		return viaParse(textName(mt), data, "text")
	}
	shown := mt
	if shown == "" || isGeneric(mt) {
		shown = sniffed
	}
	return page{}, failure(codeUnsupportedContent, false,
		"binary content (%s, %s) is not readable text: web_fetch reads HTML, PDF and text pages", shown, humanBytes(len(data)))
}

func isHTML(mt string) bool { return mt == "text/html" || mt == "application/xhtml+xml" }

func isGeneric(mt string) bool { return mt == "" || mt == "application/octet-stream" }

func isText(mt string) bool {
	switch {
	case strings.HasPrefix(mt, "text/"):
		return true
	case mt == "application/json", mt == "application/xml", mt == "application/x-ndjson",
		strings.HasSuffix(mt, "+json"), strings.HasSuffix(mt, "+xml"):
		return true
	}
	return false
}

// textName gives kb/parse the file name that chooses its reader.
func textName(mt string) string {
	switch {
	case mt == "text/markdown" || mt == "text/x-markdown":
		return "page.md"
	case mt == "text/csv":
		return "page.csv"
	case mt == "text/tab-separated-values":
		return "page.tsv"
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return "page.json"
	}
	return "page.txt"
}

// viaParse reads data with Moteur's parsers and writes the blocks back as
// Markdown-flavoured text.
func viaParse(name string, data []byte, format string) (page, error) {
	doc, err := parse.Bytes(name, data)
	switch {
	case errors.Is(err, parse.ErrEmpty):
		return page{}, failure(codeEmpty, false, "the page has no text (%v)", err)
	case errors.Is(err, parse.ErrUnsupported):
		return page{}, failure(codeUnsupportedContent, false, "%v", err)
	case err != nil:
		return page{}, failure(codeParse, false, "%v", err)
	}
	return page{Title: doc.Title, Format: format, Text: blocksText(doc.Blocks)}, nil
}

// blocksText writes parsed blocks as Markdown.
func blocksText(blocks []parse.Block) string {
	var sb strings.Builder
	for _, b := range blocks {
		switch b.Kind {
		case parse.Heading:
			sb.WriteString(strings.Repeat("#", max(1, min(b.Level, 6))) + " " + b.Text)
		case parse.Code:
			sb.WriteString("```\n" + b.Text + "\n```")
		case parse.Table:
			if b.Header != "" {
				cols := strings.Count(b.Header, "|") - 1
				sb.WriteString(b.Header + "\n|" + strings.Repeat(" --- |", max(cols, 1)) + "\n")
			}
			sb.WriteString(strings.Join(b.Rows, "\n"))
		default:
			sb.WriteString(b.Text)
		}
		sb.WriteString("\n\n")
	}
	return strings.TrimSpace(sb.String())
}

// convertHTML finds the main content with readability and turns it into
// Markdown, tables kept; a page without an article is converted whole.
func convertHTML(u *url.URL, contentType string, data []byte) (page, error) {
	r, err := charset.NewReader(bytes.NewReader(data), contentType)
	if err != nil {
		r = bytes.NewReader(data)
	}
	doc, err := html.Parse(r)
	if err != nil {
		return page{}, failure(codeParse, false, "HTML not parsed: %v", err)
	}
	var title string
	root := doc
	parser := readability.NewParser()
	if art, err := parser.ParseDocument(doc, u); err == nil && art.Node != nil {
		title = art.Title()
		var text strings.Builder
		if art.RenderText(&text) == nil && len([]rune(strings.TrimSpace(text.String()))) >= minArticleRunes {
			root = art.Node
		}
	}
	md, err := newConverter().ConvertNode(root, converter.WithDomain(u.Scheme+"://"+u.Host))
	if err != nil {
		return page{}, failure(codeParse, false, "converting HTML to Markdown: %v", err)
	}
	text := strings.TrimSpace(string(md))
	if text == "" {
		return page{}, failure(codeEmpty, false, "the page has no text (a page built by scripts cannot be read without a browser)")
	}
	if title == "" {
		title = htmlTitle(doc)
	}
	return page{Title: title, Format: "markdown", Text: text}, nil
}

// newConverter builds a converter per call: it keeps plugin state out of
// concurrent conversions, and building one is cheap.
func newConverter() *converter.Converter {
	return converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(
			table.WithHeaderPromotion(true),
			table.WithSkipEmptyRows(true),
			table.WithCellPaddingBehavior(table.CellPaddingBehaviorMinimal),
			table.WithSpanCellBehavior(table.SpanBehaviorMirror),
		),
	))
}

// htmlTitle is the text of the first <title>.
func htmlTitle(n *html.Node) string {
	if n.Type == html.ElementNode && n.Data == "title" && n.FirstChild != nil {
		return strings.TrimSpace(n.FirstChild.Data)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if t := htmlTitle(c); t != "" {
			return t
		}
	}
	return ""
}

func humanBytes(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
