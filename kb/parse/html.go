package parse

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
)

// parseHTML converts the page to Markdown (the base plugin drops head,
// script, style and similar non-content elements; the table plugin keeps
// tables as GFM tables) and reads that Markdown, so HTML and Markdown
// produce the same block structure.
func parseHTML(data []byte) (Document, error) {
	text, warnings := decodeHTML(data)
	root, err := html.Parse(strings.NewReader(text))
	if err != nil {
		// The parser refuses pathological nesting (over 512 open
		// elements); the text is still worth having.
		return plainHTML(text, append(warnings, fmt.Sprintf("HTML not parsed (%v): text extracted without structure", err))), nil
	}
	title := cleanInline(findTitle(root))
	md, err := newHTMLConverter().ConvertNode(root)
	if err != nil {
		return Document{}, fmt.Errorf("%w HTML: converting to Markdown: %w", ErrCorrupt, err)
	}
	doc := parseMarkdown(string(md))
	if title != "" {
		doc.Title = title
	}
	doc.Warnings = warnings
	return doc, nil
}

// newHTMLConverter builds a converter per call: building one is cheap and
// it keeps plugin state out of concurrent conversions.
func newHTMLConverter() *converter.Converter {
	return converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(
			table.WithHeaderPromotion(true),
			table.WithSkipEmptyRows(true),
			table.WithCellPaddingBehavior(table.CellPaddingBehaviorMinimal),
			table.WithSpanCellBehavior(table.SpanBehaviorMirror),
			table.WithNewlineBehavior(table.NewlineBehaviorPreserve),
		),
	))
}

// decodeHTML honours a charset declared in a <meta> tag when the bytes
// are not UTF-8, before falling back to the generic text decoding.
func decodeHTML(data []byte) (string, []string) {
	if utf8.Valid(data) || hasUTF16BOM(data) || bytes.HasPrefix(data, utf8BOM) {
		return DecodeText(data)
	}
	enc, name, _ := charset.DetermineEncoding(data, "text/html")
	if name == "" || name == "windows-1252" || name == "utf-8" {
		return DecodeText(data)
	}
	dec, err := enc.NewDecoder().Bytes(data)
	if err != nil {
		return DecodeText(data)
	}
	return normalizeNewlines(string(dec)), []string{"not UTF-8: decoded as " + name + " (declared by the page)"}
}

// plainHTML keeps each line of the page's visible text as a paragraph.
func plainHTML(text string, warnings []string) Document {
	var b builder
	for line := range strings.SplitSeq(htmlText(text), "\n") {
		b.paragraph(line)
	}
	doc := b.document()
	doc.Warnings = warnings
	return doc
}

// findTitle returns the text of the first <title> element.
func findTitle(n *html.Node) string {
	if n.Type == html.ElementNode && n.Data == "title" {
		var sb strings.Builder
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				sb.WriteString(c.Data)
			}
		}
		return sb.String()
	}
	if n.Type == html.ElementNode && n.Data == "body" {
		return "" // a <title> in the body is an SVG title, not the page's
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if t := findTitle(c); t != "" {
			return t
		}
	}
	return ""
}

// htmlText extracts the visible text of an HTML fragment (raw HTML blocks
// inside Markdown), block elements separated by newlines.
func htmlText(fragment string) string {
	z := html.NewTokenizer(strings.NewReader(fragment))
	var sb strings.Builder
	skip := 0 // inside <script> or <style>
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return sb.String()
		case html.TextToken:
			if skip == 0 {
				sb.Write(z.Text())
			}
		case html.StartTagToken, html.EndTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "script", "style":
				if tt == html.StartTagToken {
					skip++
				} else if skip > 0 {
					skip--
				}
			case "br", "p", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6":
				sb.WriteByte('\n')
			default:
				sb.WriteByte(' ')
			}
		}
	}
}
