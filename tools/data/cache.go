package data

import (
	"context"
	"errors"
	"sync"
)

// cache keeps a session's loaded databases by document key, loading each
// once even when calls race, and closing the least recently used beyond
// its capacity.
type cache struct {
	mu      sync.Mutex
	max     int
	closed  bool
	entries map[string]*entry
	clock   uint64
}

// entry is one document's database; its mutex serialises loading and use,
// so that a database is never closed under a running query.
type entry struct {
	mu   sync.Mutex
	ds   *dataset
	used uint64
}

func newCache(max int) *cache {
	return &cache{max: max, entries: map[string]*entry{}}
}

// with runs use on the database of key, built by load the first time,
// while no other call uses it. A failed load is not kept: the next call
// tries again.
func (c *cache) with(ctx context.Context, key string, load func(context.Context) (*dataset, error), use func(*dataset) error) error {
	e, evicted, err := c.entry(key)
	if err != nil {
		return err
	}
	for _, old := range evicted {
		_ = old.drop() // an in-memory database has nothing to lose on close
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ds != nil && e.ds.broken {
		_ = e.ds.close()
		e.ds = nil
	}
	if e.ds == nil {
		ds, err := load(ctx)
		if err != nil {
			return err
		}
		c.mu.Lock()
		gone := c.closed || c.entries[key] != e
		c.mu.Unlock()
		if gone {
			// Closed or evicted while loading: nobody else would close it.
			_ = ds.close()
			return ErrClosed
		}
		e.ds = ds
	}
	return use(e.ds)
}

// entry finds or adds the entry of key and takes out the entries beyond
// capacity, which the caller drops outside the cache's lock.
func (c *cache) entry(key string) (*entry, []*entry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, nil, ErrClosed
	}
	c.clock++
	e, ok := c.entries[key]
	if !ok {
		e = &entry{}
		c.entries[key] = e
	}
	e.used = c.clock
	var evicted []*entry
	for len(c.entries) > c.max {
		oldKey, old := "", (*entry)(nil)
		for k, v := range c.entries {
			if v != e && (old == nil || v.used < old.used) {
				oldKey, old = k, v
			}
		}
		delete(c.entries, oldKey)
		evicted = append(evicted, old)
	}
	return e, evicted, nil
}

// drop closes the entry's database once no call uses it.
func (e *entry) drop() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ds != nil && e.ds.broken {
		_ = e.ds.close()
		e.ds = nil
	}
	if e.ds == nil {
		return nil
	}
	err := e.ds.close()
	e.ds = nil
	return err
}

// close drops every database; the cache refuses calls afterwards.
func (c *cache) close() error {
	c.mu.Lock()
	c.closed = true
	entries := c.entries
	c.entries = map[string]*entry{}
	c.mu.Unlock()
	var errs []error
	for _, e := range entries {
		errs = append(errs, e.drop())
	}
	return errors.Join(errs...)
}
