package app

import (
	"context"
	"errors"
	"io/fs"

	"github.com/moteur/moteur/tools/web"
)

// A session's web:// snapshots — the whole text of each page web_fetch
// read — are kept in Moteur's database (package websnap), so that a later
// turn, opened anew by another process or by moteur serve, reads them with
// read_file too. The database is opened only when a page is stored or
// read: a turn that fetches nothing pays nothing.

// webReader serves read_file's web:// paths from the session's snapshots
// (files.WebReader).
type webReader struct{ snaps web.Snapshots }

// ReadWeb implements files.WebReader: a snapshot no longer kept is told
// apart (fs.ErrNotExist), so that read_file says to fetch the page again.
func (r webReader) ReadWeb(ctx context.Context, path string) (string, error) {
	s, err := r.snaps.Get(ctx, path)
	if errors.Is(err, web.ErrNoSnapshot) {
		return "", expiredSnapshot{err}
	}
	return s.Text, err
}

// expiredSnapshot is web.ErrNoSnapshot as read_file recognises it.
type expiredSnapshot struct{ error }

func (expiredSnapshot) Is(target error) bool { return target == fs.ErrNotExist }
func (e expiredSnapshot) Unwrap() error      { return e.error }
