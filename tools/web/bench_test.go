package web

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// BenchmarkConvertHTML measures HTML to Markdown (main content found
// first), in MB/s of HTML.
func BenchmarkConvertHTML(b *testing.B) {
	page := []byte(strings.Repeat(articleHTML(), 20))
	u, _ := url.Parse("https://news.test/tides")
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if _, err := convert(u, "text/html; charset=utf-8", page); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFetchParallel8 reads 8 local pages in one web_fetch call.
func BenchmarkFetchParallel8(b *testing.B) {
	f := newFixture(b, nil)
	var items []string
	for i := range 8 {
		path := fmt.Sprintf("/p%d", i)
		f.site.page(path, "text/html", articleHTML())
		items = append(items, fmt.Sprintf(`{"url":%q}`, f.site.url("bench.test", path)))
	}
	args := `{"items":[` + strings.Join(items, ",") + `]}`
	for b.Loop() {
		if res := f.call(b, FetchName, args); res.IsError {
			b.Fatal(res.Content)
		}
	}
}
