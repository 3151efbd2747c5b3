package server

import (
	"context"
	"errors"
	"net/http"

	"github.com/moteur/moteur/apikey"
	"github.com/moteur/moteur/kb"
)

// CodeUnknownPassage is the 404 of a passage id no base holds.
const CodeUnknownPassage = "unknown_passage"

// Bounds of the passages shown at once.
const (
	// maxPassageContext bounds the neighbouring passages on each side.
	maxPassageContext = 10
	// maxDocumentPage bounds a page of a document's passages.
	maxDocumentPage = 200
)

// passageRoutes registers GET /api/v1/passages/{id}: what a citation
// stands for. A cited alias [cN] is mapped, by the references the
// session's events carry (event.References: cite.Ref of kind "chunk"), to
// the stored id of a chunk; this route shows that passage, its document
// and, with ?context=N, the N passages before and after it.
//
// GET /api/v1/documents/{id} shows a whole document (a citation's
// "document" id, or a [dN]'s), its passages a page at a time.
func (s *Server) passageRoutes() {
	s.route("GET /api/v1/passages/{id}", s.getPassage)
	s.route("GET /api/v1/documents/{id}", s.getDocument)
}

// passageJSON is the answer of GET /api/v1/passages/{id}.
type passageJSON struct {
	Passage  kb.ChunkInfo   `json:"passage"`
	Document documentJSON   `json:"document"`
	Before   []kb.ChunkInfo `json:"before"`
	After    []kb.ChunkInfo `json:"after"`
}

// getPassage serves GET /api/v1/passages/{id}?context=N. A passage of a
// base outside the key's scope is refused (403).
func (s *Server) getPassage(w http.ResponseWriter, r *http.Request) {
	n, err := intParam(r.URL.Query().Get("context"), "context", 0, 0, maxPassageContext)
	if err != nil {
		WriteError(w, err)
		return
	}
	var out passageJSON
	err = s.withKnowledge(r.Context(), func(st *kb.Store) error {
		var err error
		out, err = passage(r.Context(), st, keyOf(r), r.PathValue("id"), n)
		return err
	})
	if err != nil {
		WriteError(w, kbError(err))
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func passage(ctx context.Context, st *kb.Store, k apikey.Key, id string, n int) (passageJSON, error) {
	c, err := st.Chunk(ctx, id)
	if errors.Is(err, kb.ErrNotFound) {
		return passageJSON{}, errorf(http.StatusNotFound, CodeUnknownPassage, err,
			"unknown passage %q: no knowledge base holds it (it may have been removed or replaced by a newer version of its document)", clip(id))
	}
	if err != nil {
		return passageJSON{}, err
	}
	d, err := st.Document(ctx, c.Document)
	if err != nil {
		return passageJSON{}, err
	}
	if err := forbidBases(k, []string{d.BaseName}); err != nil {
		return passageJSON{}, err
	}
	out := passageJSON{Passage: c, Document: documentOf(d), Before: []kb.ChunkInfo{}, After: []kb.ChunkInfo{}}
	if n == 0 {
		return out, nil
	}
	from := max(c.Index-n, 0)
	around, err := st.Chunks(ctx, c.Document, from, c.Index-from+1+n)
	if err != nil {
		return passageJSON{}, err
	}
	for _, a := range around {
		switch {
		case a.Index < c.Index:
			out.Before = append(out.Before, a)
		case a.Index > c.Index:
			out.After = append(out.After, a)
		}
	}
	return out, nil
}

// documentPage is the answer of GET /api/v1/documents/{id}.
type documentPage struct {
	Document documentJSON   `json:"document"`
	Passages []kb.ChunkInfo `json:"passages"`
	Offset   int            `json:"offset"`
	// NextOffset is where the next page starts (absent after the last).
	NextOffset *int `json:"next_offset,omitempty"`
}

// getDocument serves GET /api/v1/documents/{id}?offset=&limit=: the
// document and its passages in reading order from offset (0-based),
// limit of them (default 50). A document of a base outside the key's
// scope is refused (403).
func (s *Server) getDocument(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	offset, err := intParam(q.Get("offset"), "offset", 0, 0, 1<<30)
	if err != nil {
		WriteError(w, err)
		return
	}
	limit, err := intParam(q.Get("limit"), "limit", 50, 1, maxDocumentPage)
	if err != nil {
		WriteError(w, err)
		return
	}
	var out documentPage
	err = s.withKnowledge(r.Context(), func(st *kb.Store) error {
		d, err := st.Document(r.Context(), r.PathValue("id"))
		if errors.Is(err, kb.ErrNotFound) {
			return errorf(http.StatusNotFound, CodeUnknownDocument, err, "unknown document %q: no knowledge base holds it", clip(r.PathValue("id")))
		}
		if err != nil {
			return err
		}
		if err := forbidBases(keyOf(r), []string{d.BaseName}); err != nil {
			return err
		}
		cs, err := st.Chunks(r.Context(), d.ID, offset, limit)
		if err != nil {
			return err
		}
		out = documentPage{Document: documentOf(d), Passages: cs, Offset: offset}
		if out.Passages == nil {
			out.Passages = []kb.ChunkInfo{}
		}
		if next := offset + len(cs); len(cs) == limit && next < d.Chunks {
			out.NextOffset = &next
		}
		return nil
	})
	if err != nil {
		WriteError(w, kbError(err))
		return
	}
	writeJSON(w, http.StatusOK, out)
}
