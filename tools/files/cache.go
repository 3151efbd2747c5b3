package files

import (
	"container/list"
	"io/fs"
	"sync"
	"time"
)

// Cache limits: a model pages through the same few files again and again
// (read, edit, read the result); keeping them saves the reads without
// letting a long session hoard memory. Larger files are streamed.
const (
	defaultCacheBytes = 32 << 20
	maxCachedFile     = 2 << 20
)

// racyWindow is how recent an mtime must be for the content not to be
// cached. A file changed twice within the file system's timestamp
// granularity (2 s on FAT, 1 s on ext3 and HFS+) can keep its size and
// mtime across the second change; git calls such entries "racily clean".
const racyWindow = 2 * time.Second

// fileCache keeps the content of small files, keyed by path, size, mtime
// and a per-path change epoch.
//
// Size and mtime catch changes made by other programs. They are not enough
// for this package's own writes: an edit that keeps the length, within the
// mtime's granularity or followed by a restored mtime, would look
// unchanged. So every write this package makes bumps the path's epoch, and
// an entry is only served under the epoch it was read in.
//
// The epoch also closes the race between a reader and a writer: a reader
// notes the epoch before it reads; if a write lands while it reads, the
// entry it stores carries the old epoch and is never served.
type fileCache struct {
	maxBytes int64
	maxFile  int64

	mu      sync.Mutex
	epochs  map[string]uint64 // paths written by this set; grows with them only
	entries map[string]*list.Element
	lru     list.List // of *cacheEntry, most recently used first
	used    int64

	hits, misses int // for tests
}

type cacheEntry struct {
	path  string
	size  int64
	mtime time.Time
	epoch uint64
	data  []byte
}

func newFileCache(maxBytes, maxFile int64) *fileCache {
	return &fileCache{
		maxBytes: maxBytes,
		maxFile:  maxFile,
		epochs:   map[string]uint64{},
		entries:  map[string]*list.Element{},
	}
}

// epoch returns path's current change epoch. Call it before reading the
// content that put will store.
func (c *fileCache) epoch(path string) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.epochs[path]
}

// bump records that this package changed path: whatever was cached for it,
// or is being read for it right now, is stale.
func (c *fileCache) bump(path string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epochs[path]++
	if el, ok := c.entries[path]; ok {
		c.remove(el)
	}
}

// get returns the cached content of path if it was read from a file with
// fi's size and mtime, in the current epoch.
func (c *fileCache) get(path string, fi fs.FileInfo) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[path]
	if !ok {
		c.misses++
		return nil, false
	}
	e := el.Value.(*cacheEntry)
	if e.size != fi.Size() || !e.mtime.Equal(fi.ModTime()) || e.epoch != c.epochs[path] {
		c.remove(el)
		c.misses++
		return nil, false
	}
	c.lru.MoveToFront(el)
	c.hits++
	return e.data, true
}

// put stores data, read from a file described by fi during epoch. It keeps
// nothing when a write happened since, when the file is too large, or when
// its mtime is too recent to be trusted (see racyWindow). The caller must
// not change data afterwards: readers share it.
func (c *fileCache) put(path string, fi fs.FileInfo, epoch uint64, data []byte, now time.Time) {
	size := int64(len(data))
	if size != fi.Size() || size > c.maxFile || size > c.maxBytes {
		return
	}
	if !c.trusts(fi, now) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.epochs[path] != epoch {
		return
	}
	if el, ok := c.entries[path]; ok {
		c.remove(el)
	}
	c.entries[path] = c.lru.PushFront(&cacheEntry{path: path, size: size, mtime: fi.ModTime(), epoch: epoch, data: data})
	c.used += size
	for c.used > c.maxBytes {
		c.remove(c.lru.Back())
	}
}

// trusts reports whether a file's size and mtime, as of now, are old
// enough to stand for its content (see racyWindow).
func (c *fileCache) trusts(fi fs.FileInfo, now time.Time) bool {
	return now.Sub(fi.ModTime()) >= racyWindow
}

func (c *fileCache) remove(el *list.Element) {
	e := c.lru.Remove(el).(*cacheEntry)
	delete(c.entries, e.path)
	c.used -= e.size
}

// stats returns the hit and miss counts, for tests.
func (c *fileCache) stats() (hits, misses int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits, c.misses
}
