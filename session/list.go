package session

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
)

// List returns a page of sessions, most recently updated first, ties broken
// by id (descending). Pages are cut by keyset (the cursor is the last session's updated
// time and id), so no page repeats or skips a session that did not change
// meanwhile; one updated between two pages moves to the front and is not
// seen again by the pages after.
func (s *SQLite) List(ctx context.Context, opts ListOptions) (Page, error) {
	limit, err := listLimit(opts.Limit)
	if err != nil {
		return Page{}, err
	}
	var where []string
	var args []any
	if opts.ProjectRoot != "" {
		where = append(where, "project_root = ?")
		args = append(args, opts.ProjectRoot)
	}
	if opts.Cursor != "" {
		c, err := decodeCursor(opts.Cursor)
		if err != nil {
			return Page{}, err
		}
		where = append(where, "(updated_at, id) < (?, ?)")
		args = append(args, c.updated, c.id)
	}
	q := `SELECT ` + infoColumns + ` FROM sessions`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	q += ` ORDER BY updated_at DESC, id DESC LIMIT ?`
	args = append(args, limit+1)
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return Page{}, s.dbErr("list sessions", err)
	}
	defer rows.Close()
	var p Page
	for rows.Next() {
		i, err := scanInfo(rows)
		if err != nil {
			return Page{}, s.dbErr("list sessions", err)
		}
		p.Sessions = append(p.Sessions, i)
	}
	if err := rows.Err(); err != nil {
		return Page{}, s.dbErr("list sessions", err)
	}
	if len(p.Sessions) > limit {
		p.Sessions = p.Sessions[:limit]
		last := p.Sessions[limit-1]
		p.Next = cursor{updated: nanos(last.Updated), id: last.ID}.encode()
	}
	return p, nil
}

// listLimit applies the defaults of ListOptions.Limit.
func listLimit(n int) (int, error) {
	switch {
	case n < 0:
		return 0, fmt.Errorf("list sessions: negative limit %d", n)
	case n == 0:
		return defaultListLimit, nil
	}
	return min(n, maxListLimit), nil
}

// cursor is where a page ended: the last session's updated time and id.
type cursor struct {
	updated int64
	id      string
}

func (c cursor) encode() string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.updated, 10) + ":" + c.id))
}

func decodeCursor(s string) (cursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		u, id, ok := strings.Cut(string(b), ":")
		var n int64
		if n, err = strconv.ParseInt(u, 10, 64); ok && err == nil {
			return cursor{updated: n, id: id}, nil
		}
	}
	return cursor{}, fmt.Errorf("list sessions: invalid cursor %q", s)
}
