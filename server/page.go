package server

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"sync"
)

// webFS holds the web page: plain files written by hand, no build step, so
// what is committed is what is served. Nothing it loads comes from
// elsewhere (no CDN, no web font): the Content-Security-Policy below would
// refuse it anyway.
//
//go:embed web/*
var webFS embed.FS

// pageCSP is the page's Content-Security-Policy: its own scripts, styles
// and API only, no inline script or style, no plugin, no framing.
const pageCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// pageTypes are the content types of the page's files, fixed here rather
// than read from the system's MIME tables, which vary.
var pageTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
}

// pageFile is one embedded file, ready to serve: its bytes, their gzip and
// their ETag, computed once.
type pageFile struct {
	name, ctype, etag string
	raw, gz           []byte
}

var (
	pageOnce  sync.Once
	pageFiles map[string]*pageFile
	pageErr   error
)

// loadPage reads and compresses the embedded files once: they are part of
// the binary, so an error is a build defect that the tests catch.
func loadPage() (map[string]*pageFile, error) {
	pageOnce.Do(func() {
		pageFiles = map[string]*pageFile{}
		pageErr = fs.WalkDir(webFS, "web", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			raw, err := webFS.ReadFile(p)
			if err != nil {
				return err
			}
			f, err := newPageFile(path.Base(p), raw)
			if err != nil {
				return err
			}
			pageFiles[f.name] = f
			return nil
		})
		if pageErr == nil && pageFiles["index.html"] == nil {
			pageErr = fmt.Errorf("server: web/index.html is not embedded")
		}
	})
	return pageFiles, pageErr
}

func newPageFile(name string, raw []byte) (*pageFile, error) {
	var gz bytes.Buffer
	zw, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(raw); err != nil {
		return nil, fmt.Errorf("server: gzip %s: %w", name, err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("server: gzip %s: %w", name, err)
	}
	sum := sha256.Sum256(raw)
	ctype, ok := pageTypes[path.Ext(name)]
	if !ok {
		return nil, fmt.Errorf("server: web/%s: no content type for its extension", name)
	}
	return &pageFile{name: name, ctype: ctype, etag: `"` + hex.EncodeToString(sum[:12]) + `"`, raw: raw, gz: gz.Bytes()}, nil
}

// pageRoutes serves the web page: GET / (index.html) and GET
// /assets/{name} (the scripts and the style sheet). Both are public: the
// page asks for the key and sends it with each API request.
func (s *Server) pageRoutes() {
	s.public("GET /{$}", http.HandlerFunc(servePage("index.html")))
	s.public("GET /assets/{name}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("name")
		if name == "index.html" {
			http.Redirect(w, r, "/", http.StatusMovedPermanently)
			return
		}
		servePage(name)(w, r)
	}))
}

// servePage serves the embedded file name, gzipped when the client takes
// it, revalidated by ETag (Cache-Control: no-cache: a new binary's page is
// used at once, an unchanged one costs a 304).
func servePage(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		files, err := loadPage()
		if err != nil {
			WriteError(w, err)
			return
		}
		f := files[name]
		if f == nil {
			http.Error(w, "404 page not found", http.StatusNotFound)
			return
		}
		h := w.Header()
		h.Set("Content-Security-Policy", pageCSP)
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-cache")
		h.Set("ETag", f.etag)
		h.Set("Vary", "Accept-Encoding")
		h.Set("Content-Type", f.ctype)
		if etagMatch(r.Header.Get("If-None-Match"), f.etag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		body := f.raw
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			h.Set("Content-Encoding", "gzip")
			body = f.gz
		}
		h.Set("Content-Length", itoa(int64(len(body))))
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			_, _ = w.Write(body)
		}
	}
}

// etagMatch reports whether an If-None-Match header names etag.
func etagMatch(header, etag string) bool {
	for _, v := range strings.Split(header, ",") {
		v = strings.TrimPrefix(strings.TrimSpace(v), "W/")
		if v == etag || v == "*" {
			return true
		}
	}
	return false
}

// acceptsGzip reports whether an Accept-Encoding header takes gzip (and
// does not refuse it with q=0).
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			continue
		}
		q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
	}
	return false
}
