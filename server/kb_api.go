package server

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/moteur/moteur/apikey"
	"github.com/moteur/moteur/app"
	"github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/kb/chunk"
)

// Codes of the knowledge-base routes' errors (CodeUnknownBase is
// turns.go's).
const (
	CodeBaseExists      = "knowledge_base_exists"
	CodeInvalidBaseName = "invalid_knowledge_base_name"
	CodeUnknownDocument = "unknown_document"
	CodeNoIndex         = "no_index"
)

// kbRoutes registers the knowledge-base routes. Each opens the bases of
// the data directory with the configuration's embedding and rerank models,
// as `moteur kb` does, so that what the API and the CLI do to a base is
// the same.
func (s *Server) kbRoutes() {
	s.route("GET /api/v1/knowledge-bases", s.listBases)
	s.route("POST /api/v1/knowledge-bases", s.createBase)
	s.route("GET /api/v1/knowledge-bases/{name}", s.getBase)
	s.route("DELETE /api/v1/knowledge-bases/{name}", s.deleteBase)
	s.route("GET /api/v1/knowledge-bases/{name}/documents", s.listDocuments)
	s.route("POST /api/v1/knowledge-bases/{name}/documents", s.uploadDocuments)
	s.route("DELETE /api/v1/knowledge-bases/{name}/documents/{id}", s.deleteDocument)
	s.route("GET /api/v1/knowledge-bases/{name}/search", s.searchBase)
}

// withKnowledge runs fn with the knowledge bases open, and closes them.
// They are opened per request, from the configuration as it is now (an
// embedding model set since the server started is used).
func (s *Server) withKnowledge(ctx context.Context, fn func(*kb.Store) error) error {
	o := s.cfg.Base
	o.SessionID, o.NoModel = "", true
	st, err := app.LoadSettings(o)
	if err != nil {
		return openError(err)
	}
	store, err := st.OpenKnowledge(ctx)
	if err != nil {
		return openError(err)
	}
	return errors.Join(fn(store), store.Close())
}

// kbError maps the knowledge store's errors to the client's.
func kbError(err error) error {
	var ae *Error
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.Is(err, kb.ErrNotFound):
		return errorf(http.StatusNotFound, CodeUnknownBase, err, "%v", err)
	case errors.Is(err, kb.ErrExists):
		return errorf(http.StatusConflict, CodeBaseExists, err, "%v", err)
	case errors.Is(err, kb.ErrNoIndex):
		return errorf(http.StatusConflict, CodeNoIndex, err, "%v", err)
	}
	return err
}

// scopedBase is the base ref names (its name or id) within k's scope. A
// base outside the scope is refused with 403 whether it exists or not, so
// that a limited key learns nothing of the others.
func scopedBase(ctx context.Context, st *kb.Store, k apikey.Key, ref string) (kb.Base, error) {
	b, err := st.Base(ctx, ref)
	if errors.Is(err, kb.ErrNotFound) {
		if err := forbidBases(k, []string{ref}); err != nil {
			return b, err
		}
		return b, errorf(http.StatusNotFound, CodeUnknownBase, err,
			"unknown knowledge base %q (GET /api/v1/knowledge-bases lists them)", clip(ref))
	}
	if err != nil {
		return b, err
	}
	if !k.AllowsBase(b.Name) {
		return b, forbidBases(k, []string{b.Name})
	}
	return b, nil
}

// listBases serves GET /api/v1/knowledge-bases: the bases of the key's
// scope, by name, as `moteur kb list --json` prints them.
func (s *Server) listBases(w http.ResponseWriter, r *http.Request) {
	k := keyOf(r)
	out := []kb.Base{}
	err := s.withKnowledge(r.Context(), func(st *kb.Store) error {
		bases, err := st.List(r.Context())
		for _, b := range bases {
			if k.AllowsBase(b.Name) {
				out = append(out, b)
			}
		}
		return err
	})
	if err != nil {
		WriteError(w, kbError(err))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"knowledge_bases": out})
}

// createBaseBody is the body of POST /api/v1/knowledge-bases: the options
// of `moteur kb create`.
type createBaseBody struct {
	Name         string `json:"name"`
	Description  string `json:"description"`
	Analyzer     string `json:"analyzer"`
	NoVectors    bool   `json:"no_vectors"`
	ChunkSize    int    `json:"chunk_size"`
	ChunkOverlap int    `json:"chunk_overlap"`
}

// createBase serves POST /api/v1/knowledge-bases: 201 and the new base;
// 409 when the name is taken.
func (s *Server) createBase(w http.ResponseWriter, r *http.Request) {
	var body createBaseBody
	if err := s.decode(w, r, &body); err != nil {
		WriteError(w, err)
		return
	}
	opt, err := body.options()
	if err != nil {
		WriteError(w, err)
		return
	}
	if err := forbidBases(keyOf(r), []string{body.Name}); err != nil {
		WriteError(w, err)
		return
	}
	var b kb.Base
	err = s.withKnowledge(r.Context(), func(st *kb.Store) error {
		var err error
		b, err = st.Create(r.Context(), body.Name, opt)
		return err
	})
	if err != nil {
		WriteError(w, kbError(err))
		return
	}
	w.Header().Set("Location", "/api/v1/knowledge-bases/"+b.Name)
	writeJSON(w, http.StatusCreated, b)
}

// options checks the body as `moteur kb create` checks its flags (400
// naming the field) and returns the store's options.
func (body createBaseBody) options() (kb.CreateOptions, error) {
	if err := kb.CheckName(body.Name); err != nil {
		return kb.CreateOptions{}, errorf(http.StatusBadRequest, CodeInvalidBaseName, err, "name: %v", err)
	}
	switch body.Analyzer {
	case "", kb.AnalyzerSnowball, kb.AnalyzerMoteur, kb.AnalyzerRaw:
	default:
		return kb.CreateOptions{}, apiErrorf(http.StatusBadRequest, CodeInvalidField, "analyzer %q: want %q, %q or %q",
			clip(body.Analyzer), kb.AnalyzerSnowball, kb.AnalyzerMoteur, kb.AnalyzerRaw)
	}
	c := chunk.Config{Size: body.ChunkSize, Overlap: body.ChunkOverlap}
	if err := c.Validate(); err != nil {
		return kb.CreateOptions{}, errorf(http.StatusBadRequest, CodeInvalidField, err, "chunk_size, chunk_overlap: %v", err)
	}
	return kb.CreateOptions{Description: body.Description, Analyzer: body.Analyzer, NoVectors: body.NoVectors, Chunking: c}, nil
}

// getBase serves GET /api/v1/knowledge-bases/{name}.
func (s *Server) getBase(w http.ResponseWriter, r *http.Request) {
	var b kb.Base
	err := s.withKnowledge(r.Context(), func(st *kb.Store) error {
		var err error
		b, err = scopedBase(r.Context(), st, keyOf(r), r.PathValue("name"))
		return err
	})
	if err != nil {
		WriteError(w, kbError(err))
		return
	}
	writeJSON(w, http.StatusOK, b)
}

// deleteBase serves DELETE /api/v1/knowledge-bases/{name}: the base and
// everything indexed in it are removed (204).
func (s *Server) deleteBase(w http.ResponseWriter, r *http.Request) {
	err := s.withKnowledge(r.Context(), func(st *kb.Store) error {
		b, err := scopedBase(r.Context(), st, keyOf(r), r.PathValue("name"))
		if err != nil {
			return err
		}
		return st.Remove(r.Context(), b.ID)
	})
	if err != nil {
		WriteError(w, kbError(err))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// documentJSON is a stored document as the API shows it: kb.DocInfo and
// the file name it came from.
type documentJSON struct {
	kb.DocInfo
	FileName string `json:"file_name"`
}

func documentOf(d kb.DocInfo) documentJSON {
	return documentJSON{DocInfo: d, FileName: filepath.Base(d.Path)}
}

// listDocuments serves GET /api/v1/knowledge-bases/{name}/documents
// ?keyword=&page=&page_size=: the documents by title, a page at a time.
func (s *Server) listDocuments(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	page, err := intParam(q.Get("page"), "page", 1, 1, 1<<20)
	if err != nil {
		WriteError(w, err)
		return
	}
	size, err := intParam(q.Get("page_size"), "page_size", 50, 1, 500)
	if err != nil {
		WriteError(w, err)
		return
	}
	var docs []kb.DocInfo
	var total int
	err = s.withKnowledge(r.Context(), func(st *kb.Store) error {
		b, err := scopedBase(r.Context(), st, keyOf(r), r.PathValue("name"))
		if err != nil {
			return err
		}
		docs, total, err = st.Documents(r.Context(), b.ID, q.Get("keyword"), page, size)
		return err
	})
	if err != nil {
		WriteError(w, kbError(err))
		return
	}
	out := make([]documentJSON, 0, len(docs))
	for _, d := range docs {
		out = append(out, documentOf(d))
	}
	writeJSON(w, http.StatusOK, map[string]any{"documents": out, "total": total, "page": page, "page_size": size})
}

// deleteDocument serves DELETE /api/v1/knowledge-bases/{name}/documents/{id}:
// the document and its passages are removed from the base (204).
func (s *Server) deleteDocument(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	err := s.withKnowledge(r.Context(), func(st *kb.Store) error {
		b, err := scopedBase(r.Context(), st, keyOf(r), r.PathValue("name"))
		if err != nil {
			return err
		}
		d, err := st.Document(r.Context(), id)
		if errors.Is(err, kb.ErrNotFound) || err == nil && d.Base != b.ID {
			return notFoundf(CodeUnknownDocument, "knowledge base %s has no document %q", b.Name, clip(id))
		}
		if err != nil {
			return err
		}
		return st.RemoveDocument(r.Context(), b.ID, d.ID)
	})
	if err != nil {
		WriteError(w, kbError(err))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// searchBase serves GET /api/v1/knowledge-bases/{name}/search?q=&limit=&mode=:
// the passages found, best first, as `moteur kb search --json` prints
// them.
func (s *Server) searchBase(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	text := q.Get("q")
	if strings.TrimSpace(text) == "" {
		WriteError(w, apiErrorf(http.StatusBadRequest, CodeEmptyQuery, "q is empty: say what to search for"))
		return
	}
	mode, err := kb.ParseMode(q.Get("mode"))
	if err != nil {
		WriteError(w, errorf(http.StatusBadRequest, CodeBadRequest, err, "mode: %v", err))
		return
	}
	limit, err := intParam(q.Get("limit"), "limit", 0, 1, 100)
	if err != nil {
		WriteError(w, err)
		return
	}
	var res kb.Result
	err = s.withKnowledge(r.Context(), func(st *kb.Store) error {
		b, err := scopedBase(r.Context(), st, keyOf(r), r.PathValue("name"))
		if err != nil {
			return err
		}
		res, err = st.Search(r.Context(), kb.Query{Text: text, Mode: mode, Bases: []string{b.ID}, Limit: limit})
		return err
	})
	if err != nil {
		WriteError(w, kbError(err))
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// intParam reads an integer query parameter in [lo, hi]; "" is def.
func intParam(v, name string, def, lo, hi int) (int, error) {
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, apiErrorf(http.StatusBadRequest, CodeBadRequest, "%s %q: want an integer from %d to %d", name, clip(v), lo, hi)
	}
	return n, nil
}
