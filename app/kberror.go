package app

import (
	"context"
	"errors"

	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/kb"
)

// KnowledgeBaseError is err, an error of st about the bases named, worded
// in lang when it is that one of them does not exist: package kb speaks
// English, and its errors carry no base name to translate with, so the
// base at fault is found again by asking st. It still wraps err (and so
// kb.ErrNotFound); any other error is returned as it is. Only the path
// where err is kb.ErrNotFound costs a lookup.
func KnowledgeBaseError(ctx context.Context, lang i18n.Lang, st *kb.Store, names []string, err error) error {
	if !errors.Is(err, kb.ErrNotFound) {
		return err
	}
	for _, name := range names {
		if _, berr := st.Base(ctx, name); errors.Is(berr, kb.ErrNotFound) {
			return &translatedError{msg: i18n.Trf(lang, "knowledge base %s not found (see moteur kb list)", name), err: err}
		}
	}
	return err
}
