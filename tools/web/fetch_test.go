package web

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/moteur/moteur/kb/parse/pdftest"
)

// articleHTML is a page with navigation, a sidebar and a footer around an
// article that holds a table.
func articleHTML() string {
	var sb strings.Builder
	sb.WriteString(`<!doctype html><html><head><title>Tides of the Loire | River News</title></head><body>
<header><nav class="menu"><a href="/">Home</a> <a href="/about">About us</a> <a href="/shop">Shop the merch</a></nav></header>
<aside class="sidebar"><h3>Popular</h3><ul><li><a href="/x">Ten cats that look like bread</a></li></ul></aside>
<main><article><h1>Tides of the Loire</h1>`)
	for i := range 6 {
		fmt.Fprintf(&sb, "<p>The estuary of the Loire rises and falls twice a day, and paragraph %d explains how the tide reaches Nantes, "+
			"how the boatmen read it, and why the river keeps its sand banks moving from one season to the next.</p>\n", i)
	}
	sb.WriteString(`<table><thead><tr><th>Port</th><th>High tide</th></tr></thead>
<tbody><tr><td>Saint-Nazaire</td><td>06:12</td></tr><tr><td>Nantes</td><td>08:40</td></tr></tbody></table>
<p>The times above are for a spring tide, and they move by about fifty minutes a day.</p></article></main>
<footer class="footer"><p>Subscribe to our newsletter</p><p>© River News, all rights reserved</p></footer></body></html>`)
	return sb.String()
}

func TestFetchHTMLMainContentAsMarkdown(t *testing.T) {
	f := newFixture(t, nil)
	f.site.page("/tides", "text/html; charset=utf-8", articleHTML())
	res := f.call(t, FetchName, `{"items":[{"url":"`+f.site.url("news.test", "/tides")+`"}]}`)
	if res.IsError {
		t.Fatalf("error: %s", res.Content)
	}
	mustContain(t, res.Content, `id="w1"`, `status="success"`, `format="markdown"`, "Tides of the Loire",
		"| Port | High tide |", "| Nantes | 08:40 |", "paragraph 5 explains", `snapshot="web://news.test/`)
	mustNotContain(t, res.Content, "Subscribe to our newsletter", "Shop the merch", "look like bread")
	if len(res.References) != 1 || res.References[0].Alias != "w1" || res.References[0].Kind != RefKind ||
		res.References[0].ID != f.site.url("news.test", "/tides") {
		t.Fatalf("references %+v", res.References)
	}
}

func TestFetchPDF(t *testing.T) {
	content := "BT /F1 24 Tf 72 720 Td (Hello PDF world) Tj ET\nBT /F1 12 Tf 72 600 Td (A paragraph lower on the page.) Tj ET"
	pdf := pdftest.Objects([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
	}, "")
	f := newFixture(t, nil)
	f.site.page("/report.pdf", "application/pdf", string(pdf))
	res := f.call(t, FetchName, `{"items":[{"url":"`+f.site.url("docs.test", "/report.pdf")+`"}]}`)
	mustContain(t, res.Content, `status="success"`, `format="text"`, "Hello PDF world", "A paragraph lower on the page.")
}

func TestFetchPlainTextAndPagination(t *testing.T) {
	f := newFixture(t, nil)
	var sb strings.Builder
	for i := range 400 {
		fmt.Fprintf(&sb, "Line %03d of a long plain text file, long enough to need pages.\n\n", i)
	}
	f.site.page("/long.txt", "text/plain; charset=utf-8", sb.String())
	u := f.site.url("files.test", "/long.txt")
	first := f.call(t, FetchName, `{"items":[{"url":"`+u+`"}]}`)
	mustContain(t, first.Content, `offset="0" chars="8000"`, `next_offset="8000"`, "Line 000", `{url:"w1", offset:8000}`)
	second := f.call(t, FetchName, `{"items":[{"url":"w1","offset":8000,"limit":500}]}`)
	mustContain(t, second.Content, `offset="8000" chars="500"`, `next_offset="8500"`)
	mustNotContain(t, second.Content, "Line 000")
	if n := f.site.count("/long.txt"); n != 1 {
		t.Fatalf("%d requests, want 1: the next page comes from the snapshot", n)
	}
	m := regexp.MustCompile(`snapshot="(web://[^"]+)"`).FindStringSubmatch(first.Content)
	if m == nil {
		t.Fatal("no snapshot path")
	}
	snap, err := f.snaps.Get(t.Context(), m[1])
	if err != nil || !strings.Contains(snap.Text, "Line 399") || snap.URL != u {
		t.Fatalf("snapshot %q: %v, %+v", m[1], err, snap.URL)
	}
}

func TestFetchSharedBudget(t *testing.T) {
	f := newFixture(t, nil)
	f.site.page("/short", "text/plain", strings.Repeat("s", 1000))
	f.site.page("/long", "text/plain", strings.Repeat("l", 20000))
	res := f.call(t, FetchName, `{"items":[{"url":"`+f.site.url("a.test", "/long")+`"},{"url":"`+f.site.url("a.test", "/short")+`"}]}`)
	mustContain(t, res.Content, `chars="7000" total_chars="20000"`, `chars="1000" total_chars="1000"`)
}

func TestFetchRedirectChain(t *testing.T) {
	f := newFixture(t, nil)
	for i := 1; i <= 3; i++ {
		f.site.handle(fmt.Sprintf("/r%d", i), func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, fmt.Sprintf("/r%d", i-1), http.StatusFound)
		})
	}
	f.site.page("/r0", "text/plain", "the end of the chain")
	res := f.call(t, FetchName, `{"items":[{"url":"`+f.site.url("hop.test", "/r3")+`"}]}`)
	mustContain(t, res.Content, `status="success"`, "the end of the chain", `final_url="`+f.site.url("hop.test", "/r0")+`"`)
	if n := len(f.gate.asked()); n != 4 {
		t.Fatalf("gate asked %d times, want 4 (each redirect checked)", n)
	}
}

func TestFetchRedirectToLoopbackRefused(t *testing.T) {
	f := newFixture(t, nil)
	inner := newSite(t)
	inner.page("/admin", "text/plain", "secret")
	f.site.handle("/go", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, inner.URL+"/admin", http.StatusFound)
	})
	res := f.call(t, FetchName, `{"items":[{"url":"`+f.site.url("evil.test", "/go")+`"}]}`)
	mustContain(t, res.Content, `status="failed" code="refused"`, "127.0.0.1 is a loopback address")
	if !res.IsError || f.site.count("/go") != 1 || inner.count("/admin") != 0 {
		t.Fatalf("outer %d (want 1), inner %d (want 0)", f.site.count("/go"), inner.count("/admin"))
	}
}

func TestFetchHostResolvingToPrivateRefused(t *testing.T) {
	f := newFixture(t, nil)
	f.net.on("intranet.test", "10.0.0.5")
	res := f.call(t, FetchName, `{"items":[{"url":"http://intranet.test/wiki"}]}`)
	mustContain(t, res.Content, `code="refused"`, "intranet.test resolves to 10.0.0.5, which is a private address (allow_private_hosts to allow it)")
	if f.net.lookupsOf("intranet.test") != 1 || len(f.net.dials()) != 0 {
		t.Fatalf("lookups %d (want 1), dials %v (want none)", f.net.lookupsOf("intranet.test"), f.net.dials())
	}
}

func TestFetchAllowedPrivateHost(t *testing.T) {
	f := newFixture(t, func(c *Config, _ *site) { c.AllowPrivateHosts = []string{"wiki.corp.test"} })
	site := f.site
	site.page("/home", "text/plain", "intranet home")
	f.net.on("wiki.corp.test", "127.0.0.1")
	res := f.call(t, FetchName, `{"items":[{"url":"http://wiki.corp.test:`+site.port()+`/home"}]}`)
	mustContain(t, res.Content, `status="success"`, "intranet home")
	if s := f.gate.asked(); len(s) != 1 || !s[0].Local {
		t.Fatalf("gate sends %+v: want one, Local (an allowed private host)", s)
	}
}

func TestFetchRebindingPinned(t *testing.T) {
	f := newFixture(t, nil)
	f.site.page("/", "text/plain", "public page")
	f.net.on("rebind.test", publicAddr, "127.0.0.1")
	res := f.call(t, FetchName, `{"items":[{"url":"`+f.site.url("rebind.test", "/")+`"}]}`)
	mustContain(t, res.Content, "public page")
	if n := f.net.lookupsOf("rebind.test"); n != 1 {
		t.Fatalf("%d lookups, want 1", n)
	}
	if d := f.net.dials(); len(d) != 1 || d[0] != publicAddr+":"+f.site.port() {
		t.Fatalf("dialled %v, want the first answer", d)
	}
}

func TestFetchLiteralInternalAddressesRefused(t *testing.T) {
	f := newFixture(t, nil)
	res := f.call(t, FetchName, `{"items":[{"url":"http://169.254.169.254/latest/meta-data/"},{"url":"http://[::ffff:127.0.0.1]:`+f.site.port()+`/"}]}`)
	mustContain(t, res.Content, "169.254.169.254 is a cloud metadata address", "::ffff:127.0.0.1 (127.0.0.1) is a loopback address")
	if len(f.gate.asked()) != 2 || len(f.net.dials()) != 0 {
		t.Fatalf("gate asked %d (want 2: the attempts were made), dials %v (want none)", len(f.gate.asked()), f.net.dials())
	}
}

func TestFetchBodyCapped(t *testing.T) {
	f := newFixture(t, func(c *Config, _ *site) { c.MaxBodyBytes = 1 << 20 })
	written := make(chan int64, 1)
	f.site.handle("/huge", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		line := []byte(strings.Repeat("0123456789", 10) + "\n")
		var n int64
		for n < 50<<20 {
			k, err := w.Write(line)
			n += int64(k)
			if err != nil {
				break
			}
		}
		written <- n
	})
	res := f.call(t, FetchName, `{"items":[{"url":"`+f.site.url("big.test", "/huge")+`"}]}`)
	mustContain(t, res.Content, `status="success"`, `truncated="body cut at the size cap"`)
	total := regexp.MustCompile(`total_chars="(\d+)"`).FindStringSubmatch(res.Content)
	var chars int
	fmt.Sscan(total[1], &chars)
	if chars > 1<<20 {
		t.Fatalf("%d characters kept, cap 1 MiB", chars)
	}
	if n := <-written; n >= 50<<20 {
		t.Fatalf("the server wrote the whole 50 MB: the client did not stop reading")
	}
}

func TestFetchNeverEndingPageTimesOut(t *testing.T) {
	f := newFixture(t, func(c *Config, _ *site) { c.PageTimeout = 300 * time.Millisecond })
	f.site.handle("/slow", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body><p>first bytes"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	start := time.Now()
	res := f.call(t, FetchName, `{"items":[{"url":"`+f.site.url("slow.test", "/slow")+`"}]}`)
	mustContain(t, res.Content, `code="timeout" retry="true"`)
	if f.site.count("/slow") != 1 || time.Since(start) > 10*time.Second {
		t.Fatalf("hits %d, took %s", f.site.count("/slow"), time.Since(start))
	}
}

func TestFetchBinaryRefused(t *testing.T) {
	f := newFixture(t, nil)
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
	f.site.page("/logo.png", "image/png", png)
	f.site.page("/blob", "application/octet-stream", "PK\x03\x04\x14\x00\x00\x00\x08\x00")
	res := f.call(t, FetchName, `{"items":[{"url":"`+f.site.url("img.test", "/logo.png")+`"},{"url":"`+f.site.url("img.test", "/blob")+`"}]}`)
	mustContain(t, res.Content, `code="unsupported_content" retry="false">binary content (image/png`, "binary content (application/zip")
	if !res.IsError {
		t.Fatal("no page read, yet not an error")
	}
}

func TestFetchGateRefusal(t *testing.T) {
	f := newFixture(t, nil)
	f.gate.refuse = func(s Send) error {
		if s.Host == "blocked.test" {
			return fmt.Errorf("%w: blocked.test is not in allowed_hosts", errBlocked)
		}
		return nil
	}
	f.site.page("/p", "text/plain", "page")
	f.site.handle("/jump", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, f.site.url("blocked.test", "/p"), http.StatusFound)
	})
	res := f.call(t, FetchName, `{"items":[{"url":"`+f.site.url("blocked.test", "/p")+`"},{"url":"`+f.site.url("ok.test", "/jump")+`"}]}`)
	if strings.Count(res.Content, `code="denied"`) != 2 {
		t.Fatalf("want both denied (directly and on redirect):\n%s", res.Content)
	}
	mustContain(t, res.Content, "blocked.test is not in allowed_hosts")
	if f.site.count("/p") != 0 || f.site.count("/jump") != 1 || len(f.gate.asked()) != 3 {
		t.Fatalf("/p %d (want 0), /jump %d (want 1), gate asked %d (want 3)", f.site.count("/p"), f.site.count("/jump"), len(f.gate.asked()))
	}
	if f.net.lookupsOf("blocked.test") != 0 {
		t.Fatal("a denied host was resolved")
	}
}

func TestFetchBadItems(t *testing.T) {
	f := newFixture(t, nil)
	f.site.page("/ok", "text/plain", "fine")
	ok := f.site.url("x.test", "/ok")
	res := f.call(t, FetchName, `{"items":[{"url":"ftp://x.test/f"},{"url":"not a url"},{"url":"w9"},{"url":"`+ok+`"},{"url":"`+ok+`"},{"url":"http://u:p@x.test/"}]}`)
	mustContain(t, res.Content, `code="unsupported_scheme"`, `code="invalid_url"`, `code="unknown_id"`, `status="skipped" code="duplicate"`,
		"carries credentials", "fine", "6 page(s): 1 success, 4 failed, 1 skipped")
	if res.IsError {
		t.Fatal("one page read: not an error")
	}
	if f.site.count("/ok") != 1 {
		t.Fatalf("duplicate fetched: %d requests", f.site.count("/ok"))
	}
}

func TestFetchHTTPErrorStatus(t *testing.T) {
	f := newFixture(t, nil)
	f.site.handle("/gone", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "gone", http.StatusNotFound) })
	f.site.handle("/busy", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "30")
		http.Error(w, "busy", http.StatusServiceUnavailable)
	})
	res := f.call(t, FetchName, `{"items":[{"url":"`+f.site.url("e.test", "/gone")+`"},{"url":"`+f.site.url("e.test", "/busy")+`"}]}`)
	mustContain(t, res.Content, `code="http_status" retry="false">HTTP 404 Not Found`, `code="http_status" retry="true">HTTP 503 Service Unavailable`, "Retry-After: 30")
}

func TestFetchTimeoutIsPageBudgetPlusMargin(t *testing.T) {
	f := newFixture(t, func(c *Config, _ *site) { c.PageTimeout = time.Minute })
	tool, _ := f.reg.Lookup(FetchName)
	if d := tool.(interface{ Timeout() time.Duration }).Timeout(); d != time.Minute+DefaultToolMargin {
		t.Fatalf("timeout %s", d)
	}
	d := newFixture(t, nil)
	tool, _ = d.reg.Lookup(FetchName)
	if got := tool.(interface{ Timeout() time.Duration }).Timeout(); got != 3*time.Minute+5*time.Second {
		t.Fatalf("default timeout %s, want 3m5s", got)
	}
}
