package kb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/moteur/moteur/kb/parse"
)

// Text is a document given as text rather than as a file (a test set's
// corpus, an API upload).
type Text struct {
	// Key identifies the document in its base, as a path does a file's;
	// adding the same key again replaces it.
	Key   string
	Title string
	Body  string
	// Name is the file name the body would have, which chooses its format
	// ("notes.md" for Markdown); "" means plain text.
	Name string
}

// AddText adds or replaces one document given as text, as Ingest does for
// a file.
func (s *Store) AddText(ctx context.Context, base string, t Text) (FileReport, error) {
	b, err := s.Base(ctx, base)
	if err != nil {
		return FileReport{}, err
	}
	if err := s.checkEmbedder(b); err != nil {
		return FileReport{}, err
	}
	fr := FileReport{Path: t.Key, Bytes: int64(len(t.Body))}
	name := t.Name
	if name == "" {
		name = "text.txt"
	}
	doc, err := parse.Bytes(name, []byte(t.Body))
	if err != nil {
		return fr, fmt.Errorf("%s: %w", t.Key, err)
	}
	if t.Title != "" {
		doc.Title = t.Title
	}
	sum := sha256.Sum256([]byte(t.Title + "\x00" + t.Body))
	p := s.prepareDoc(ctx, b, &prepared{fr: fr}, storedDoc{path: t.Key, hash: hex.EncodeToString(sum[:]), size: fr.Bytes, doc: doc})
	s.commit(ctx, b, []*prepared{p})
	if p.fr.Status == StatusFailed {
		return p.fr, errors.New(p.fr.Error)
	}
	return p.fr, nil
}
