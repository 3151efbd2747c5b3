package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/kb/parse"
)

// Codes of the upload's errors.
const (
	CodeNoFiles            = "no_files"
	CodeMalformedMultipart = "malformed_multipart"
	CodeInvalidFileName    = "invalid_file_name"
	// uploadField is the multipart field of the files.
	uploadField = "files"
	// maxFileName bounds a file name, in bytes (most filesystems' limit).
	maxFileName = 255
)

// uploadsDir is where uploaded files wait for their ingestion, under the
// data directory: .incoming/<random> while the request is read, then
// <base id>/<file name> — a stable path, so that a file sent again with
// the same name is unchanged or updated, as `moteur kb add` does for the
// same path. Both are removed once the ingestion is done: the base holds
// the text.
func (s *Server) uploadsDir() (string, error) {
	dir, err := filepath.Abs(filepath.Join(s.cfg.Base.DataDir, "uploads"))
	if err != nil {
		return "", fmt.Errorf("uploads directory: %w", err)
	}
	return dir, nil
}

// staged is one part of an upload: written to disk, or refused.
type staged struct {
	name    string // the file name as sent (its base name)
	path    string // where it is staged ("" when refused)
	refused string // why it was refused, as a FileReport error
}

// uploadDocuments serves POST /api/v1/knowledge-bases/{name}/documents: a
// multipart/form-data body whose "files" parts are added to the base with
// the ingestion of `moteur kb add`, and its report (the same JSON as
// `moteur kb add --json`, each path the file name as sent). Each part is
// streamed to a file under the data directory, never held in memory; a
// body over Config.MaxUpload is refused with 413 and nothing is ingested.
// A file over parse's limit, or sent twice, is reported failed and the
// others go on.
func (s *Server) uploadDocuments(w http.ResponseWriter, r *http.Request) {
	boundary, err := multipartBoundary(r)
	if err != nil {
		WriteError(w, err)
		return
	}
	if r.ContentLength > s.cfg.MaxUpload {
		WriteError(w, s.uploadTooLarge(nil))
		return
	}
	var rep uploadReport
	err = s.withKnowledge(r.Context(), func(st *kb.Store) error {
		b, err := scopedBase(r.Context(), st, keyOf(r), r.PathValue("name"))
		if err != nil {
			return err
		}
		root, err := s.uploadsDir()
		if err != nil {
			return err
		}
		incoming, err := makeIncoming(root)
		if err != nil {
			return err
		}
		defer os.RemoveAll(incoming)
		body := http.MaxBytesReader(w, r.Body, s.cfg.MaxUpload)
		files, err := s.readParts(multipart.NewReader(body, boundary), incoming)
		if err != nil {
			return err
		}
		rep, err = ingestStaged(r.Context(), st, b, filepath.Join(root, b.ID), files)
		return err
	})
	if err != nil {
		WriteError(w, kbError(err))
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

// multipartBoundary checks that r is multipart/form-data (415 otherwise)
// and returns its boundary.
func multipartBoundary(r *http.Request) (string, error) {
	ct := r.Header.Get("Content-Type")
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return "", apiErrorf(http.StatusUnsupportedMediaType, CodeUnsupportedMedia,
			"request body: Content-Type %q: want multipart/form-data with a boundary, the files in parts named %s", clip(ct), uploadField)
	}
	return params["boundary"], nil
}

func (s *Server) uploadTooLarge(err error) *Error {
	return &Error{Status: http.StatusRequestEntityTooLarge, Code: CodeBodyTooLarge, Err: err,
		Message: fmt.Sprintf("upload larger than the limit of %d bytes: nothing was added; send fewer or smaller files", s.cfg.MaxUpload)}
}

// makeIncoming makes a fresh directory for one request's parts.
func makeIncoming(root string) (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	dir := filepath.Join(root, ".incoming", hex.EncodeToString(b[:]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("uploads directory: %w", err)
	}
	return dir, nil
}

// readParts streams every part of the body to dir. A part that is not a
// file of the "files" field, or whose name is unusable, refuses the whole
// request (400); a body over the limit, 413.
func (s *Server) readParts(mr *multipart.Reader, dir string) ([]staged, error) {
	var files []staged
	seen := map[string]bool{}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, s.partError(err)
		}
		f, err := s.readPart(part, dir, seen)
		part.Close()
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil, apiErrorf(http.StatusBadRequest, CodeNoFiles, "no file in the upload: send one or more parts named %s, each with a filename", uploadField)
	}
	return files, nil
}

func (s *Server) readPart(part *multipart.Part, dir string, seen map[string]bool) (staged, error) {
	if field := part.FormName(); field != uploadField {
		return staged{}, apiErrorf(http.StatusBadRequest, CodeUnknownField,
			"multipart field %q: unknown; the files go in parts named %s", clip(field), uploadField)
	}
	name, err := uploadName(part.FileName())
	if err != nil {
		return staged{}, err
	}
	f := staged{name: name}
	if seen[name] {
		f.refused = name + ": sent twice in this upload; the first one is kept"
		return f, nil
	}
	seen[name] = true
	path := filepath.Join(dir, name)
	fits, err := copyLimited(path, part, parse.DefaultMaxBytes)
	switch {
	case err != nil:
		return staged{}, s.partError(err)
	case !fits:
		f.refused = fmt.Sprintf("%s: %v: more than %d MiB, the limit of one file", name, parse.ErrTooLarge, parse.DefaultMaxBytes>>20)
		return f, os.Remove(path)
	}
	f.path = path
	return f, nil
}

// partError is the error of a body that could not be read: over the
// limit (413), or not valid multipart (400).
func (s *Server) partError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return s.uploadTooLarge(err)
	}
	return errorf(http.StatusBadRequest, CodeMalformedMultipart, err, "request body: malformed multipart: %v", err)
}

// uploadName is the file name a part was sent with, its base name only
// (a browser may send a path): 400 when it has none or an unusable one.
func uploadName(sent string) (string, error) {
	name := sent
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	switch {
	case name == "":
		return "", apiErrorf(http.StatusBadRequest, CodeInvalidFileName, "a part named %s has no filename: each file needs one (its format is read from it)", uploadField)
	case name == "." || name == "..":
		return "", apiErrorf(http.StatusBadRequest, CodeInvalidFileName, "file name %q: not a file name", clip(sent))
	case len(name) > maxFileName:
		return "", apiErrorf(http.StatusBadRequest, CodeInvalidFileName, "file name %q: longer than %d bytes", clip(name), maxFileName)
	case !utf8.ValidString(name) || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return "", apiErrorf(http.StatusBadRequest, CodeInvalidFileName, "file name %q: not valid UTF-8 or holds a control character", clip(name))
	}
	return name, nil
}

// copyLimited writes r to a new file at path; fits is false when r holds
// more than limit bytes (the file then holds limit+1 of them).
func copyLimited(path string, r io.Reader, limit int64) (fits bool, err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return false, err
	}
	n, err := io.Copy(f, io.LimitReader(r, limit+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, err
	}
	return n <= limit, nil
}

// uploadLocks serialises the ingestions of uploads into one base, which
// share its directory of stable paths.
var uploadLocks struct {
	mu sync.Mutex
	m  map[string]*sync.Mutex
}

func lockUploads(dir string) func() {
	uploadLocks.mu.Lock()
	if uploadLocks.m == nil {
		uploadLocks.m = map[string]*sync.Mutex{}
	}
	l := uploadLocks.m[dir]
	if l == nil {
		l = &sync.Mutex{}
		uploadLocks.m[dir] = l
	}
	uploadLocks.mu.Unlock()
	l.Lock()
	return l.Unlock
}

// uploadReport is kb.IngestReport with each file's path the name it was
// sent with, and Error set when the ingestion stopped before its end (the
// files it did not reach are reported failed).
type uploadReport struct {
	kb.IngestReport
	Error string `json:"error,omitempty"`
}

// ingestStaged moves the staged files to their stable paths in dir and
// ingests them, as `moteur kb add` ingests files, then removes them. The
// report lists the files in the order they were sent.
func ingestStaged(ctx context.Context, st *kb.Store, b kb.Base, dir string, files []staged) (uploadReport, error) {
	unlock := lockUploads(dir)
	defer unlock()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return uploadReport{}, fmt.Errorf("uploads directory: %w", err)
	}
	var paths []string
	for i, f := range files {
		if f.path == "" {
			continue
		}
		final := filepath.Join(dir, f.name)
		if err := os.Rename(f.path, final); err != nil {
			return uploadReport{}, fmt.Errorf("stage %s: %w", f.name, err)
		}
		files[i].path = final
		paths = append(paths, final)
		defer os.Remove(final)
	}
	var got kb.IngestReport
	var ingestErr error
	if len(paths) > 0 {
		got, ingestErr = st.Ingest(ctx, b.ID, paths, kb.IngestOptions{})
		if ingestErr != nil && got.Base == "" {
			return uploadReport{}, ingestErr // nothing ran: no base, a model mismatch
		}
	}
	return reportUpload(b, files, got, ingestErr), nil
}

// reportUpload merges the ingestion's report with the files refused before
// it, in upload order, naming each file as it was sent.
func reportUpload(b kb.Base, files []staged, got kb.IngestReport, ingestErr error) uploadReport {
	byPath := map[string]kb.FileReport{}
	for _, fr := range got.Files {
		byPath[fr.Path] = fr
	}
	rep := uploadReport{IngestReport: kb.IngestReport{Base: b.Name, Files: make([]kb.FileReport, 0, len(files)), Duration: got.Duration}}
	for _, f := range files {
		fr, ok := byPath[f.path]
		switch {
		case f.path == "":
			fr = kb.FileReport{Status: kb.StatusFailed, Error: f.refused}
		case !ok || fr.Status == "":
			reason := "not ingested"
			if ingestErr != nil {
				reason += ": " + ingestErr.Error()
			}
			fr = kb.FileReport{Status: kb.StatusFailed, Error: f.name + ": " + reason}
		default:
			fr.Error = strings.ReplaceAll(fr.Error, f.path, f.name)
		}
		fr.Path = f.name
		rep.add(fr)
	}
	if ingestErr != nil {
		rep.Error = ingestErr.Error()
	}
	return rep
}

func (r *uploadReport) add(fr kb.FileReport) {
	r.Files = append(r.Files, fr)
	switch fr.Status {
	case kb.StatusAdded:
		r.Added++
	case kb.StatusUpdated:
		r.Updated++
	case kb.StatusUnchanged:
		r.Unchanged++
	case kb.StatusFailed:
		r.Failed++
	}
	r.Chunks += fr.Chunks
	r.Bytes += fr.Bytes
}
