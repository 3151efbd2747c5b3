package event

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime"
	"slices"
	"sync"
)

// How VerifyAudit goes through a log: it reads it in blocks of
// auditChunkSize bytes, each cut after its last end of line (a longer line
// grows its block). A log of one block is checked in the calling goroutine.
// Otherwise a reader goroutine reads the blocks ahead, up to GOMAXPROCS
// workers prepare them, one block each at a time (auditHasher.prepare: the
// form, the MAC or hash, the JSON and the store's head of each record, what
// takes the time), and the calling goroutine checks the prepared records in
// order (auditVerifier.record: the index, the chain, the seq, the session,
// what the records before left): the first bad record it meets is the first
// of the log, and the report and the error are exactly those of checking
// one record after the other. At the first bad record, it takes back every
// block, as the reader and the workers are done with them, then stops them:
// r is never read once VerifyAudit has returned, and how far r was read
// depends on the log, not on the goroutines' timing (nor, so, does what ran:
// the fuzzer's coverage is that of the input). A panic of r (or of a worker)
// goes on in the calling goroutine, once the records before have been
// checked, as it would have. At most auditMaxWorkers + 3 blocks are in
// memory.

// auditChunkSize is the size of the blocks an audit log is read and
// verified in.
var auditChunkSize = 256 << 10

// minAuditChunk is the smallest block a log is read in.
const minAuditChunk = 4 << 10

// blockFor is the block size for r: auditChunkSize, or less for a file
// that holds less, so that checking a short session's log (each time a
// server continues it) does not allocate for a long one's. The block
// grows, as for a long line, should the file have grown meanwhile.
func blockFor(r io.Reader) int {
	size := int64(-1)
	switch f := r.(type) {
	case interface{ Size() int64 }: // *io.SectionReader, *bytes.Reader
		size = f.Size()
	case interface{ Stat() (fs.FileInfo, error) }:
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			size = st.Size()
		}
	}
	if size < 0 || size >= int64(auditChunkSize) {
		return auditChunkSize
	}
	return max(minAuditChunk, int(size)+1)
}

// auditMaxWorkers bounds the workers, and so the blocks in memory.
const auditMaxWorkers = 8

// auditVerifyOptions are verifyAudit's settings: VerifyAudit takes the
// defaults, the tests smaller blocks and more workers.
type auditVerifyOptions struct {
	chunk   int // the block size; auditChunkSize when 0
	workers int // runtime.GOMAXPROCS(0) (at most auditMaxWorkers) when 0; 1 checks all in the calling goroutine
	stats   *auditVerifyStats
	// fresh: the parallel path allocates its chunks rather than take them
	// from auditChunks, where what a verification runs would depend on
	// the ones before: the fuzzer wants it to depend on the input only.
	fresh bool
}

// auditVerifyStats tells a test how a log was verified.
type auditVerifyStats struct {
	chunks   int     // the blocks checked, of one or more complete lines
	prepared int     // of which, prepared by workers
	ends     []int64 // where each ended in the input (after an end of line)
}

// count counts c, a block checked.
func (s *auditVerifyStats) count(c *auditChunk, prepared bool) {
	if c.n == 0 {
		return
	}
	s.chunks++
	if prepared {
		s.prepared++
	}
	s.ends = append(s.ends, c.end)
}

func verifyAudit(r io.Reader, check AuditCheck, o auditVerifyOptions) (AuditReport, error) {
	v := newAuditVerifier(check)
	if check.Store != nil {
		if err := check.Store.check(); err != nil {
			return v.report(), fmt.Errorf("audit log: %w", err)
		}
	}
	if o.chunk <= 0 {
		o.chunk = blockFor(r)
	}
	if o.workers <= 0 {
		o.workers = min(runtime.GOMAXPROCS(0), auditMaxWorkers)
	}
	br := &auditBlockReader{r: r, size: o.chunk}
	c := newAuditChunk()
	br.next(c)
	var err error
	if br.err == nil && o.workers > 1 {
		err = v.parallel(br, c, o)
	} else {
		err = v.inline(br, c, o)
	}
	if err != nil {
		return v.report(), err
	}
	switch {
	case !errors.Is(br.err, io.EOF):
		return v.report(), fmt.Errorf("read audit log: %w", br.err)
	case br.torn:
		return v.report(), v.fail("truncated record: no end of line", ErrAuditTorn)
	}
	return v.report(), v.end() // the end, after a whole line
}

// inline checks the blocks one after the other, from c, the first.
func (v *auditVerifier) inline(br *auditBlockReader, c *auditChunk, o auditVerifyOptions) error {
	for {
		if o.stats != nil {
			o.stats.count(c, false)
		}
		for data := c.buf[:c.n]; len(data) > 0; {
			i := bytes.IndexByte(data, '\n')
			if err := v.line(data[:i]); err != nil {
				return err
			}
			data = data[i+1:]
		}
		if br.err != nil {
			return nil
		}
		c.release(br.size)
		br.next(c)
	}
}

// parallel checks the blocks from c, the first, prepared by workers.
func (v *auditVerifier) parallel(br *auditBlockReader, c *auditChunk, o auditVerifyOptions) error {
	n := o.workers + 3
	jobs := make(chan *auditChunk, n)  // to the workers
	order := make(chan *auditChunk, n) // to this goroutine, in the log's order
	free := make(chan *auditChunk, n)  // back to the reader
	chunks := make([]*auditChunk, n-1)
	for i := range chunks {
		if o.fresh {
			chunks[i] = newAuditChunk()
		} else {
			chunks[i] = auditChunks.Get().(*auditChunk)
		}
		free <- chunks[i]
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	defer func() {
		close(stop)
		wg.Wait()
		if !o.fresh {
			for _, c := range chunks {
				putAuditChunk(c)
			}
		}
	}()
	check := v.check
	for range o.workers {
		wg.Go(func() {
			h := newAuditHasher(check)
			for c := range jobs {
				c.prepareOrPanic(h, check.Store)
				c.done <- struct{}{}
			}
		})
	}
	var readPanic any // of r, in the reader; known once order is closed
	wg.Go(func() {
		defer close(jobs)
		defer close(order)
		defer func() { readPanic = recover() }()
		for {
			// Never blocks: there are n chunks.
			jobs <- c
			order <- c
			if br.err != nil {
				return
			}
			select {
			case c = <-free:
			case <-stop: // once all n chunks are back: never while reading
				return
			}
			br.next(c)
		}
	})
	var failed error
	held := 0 // the chunks taken from order, not given back to free
	for c := range order {
		held++
		<-c.done
		if failed == nil {
			failed = v.chunk(c, o)
		}
		if failed == nil {
			c.release(br.size)
			free <- c
			held--
		} else if held == n {
			break // the reader holds none: it waits for one, for good
		}
	}
	if failed == nil && readPanic != nil {
		panic(readPanic)
	}
	return failed
}

// chunk checks the records of c, prepared.
func (v *auditVerifier) chunk(c *auditChunk, o auditVerifyOptions) error {
	if o.stats != nil {
		o.stats.count(c, true)
	}
	pres := c.pres
	if c.panicked != nil {
		pres = pres[:len(pres)-1] // the line it panicked on
	}
	for i := range pres {
		if err := v.record(&pres[i]); err != nil {
			return err
		}
	}
	if c.panicked != nil {
		panic(c.panicked)
	}
	return nil
}

// auditChunk is a block of a log: complete lines, then the start of one
// (until the next block takes it).
type auditChunk struct {
	buf  []byte
	n    int   // buf[:n] are the complete lines
	end  int64 // the offset in the input of buf[n]
	pres []auditPre
	done chan struct{} // a worker has prepared the lines
	// panicked is what the worker preparing c.pres' last line panicked
	// with, if it did.
	panicked any
}

// newAuditChunk is a chunk of no block yet.
func newAuditChunk() *auditChunk { return &auditChunk{done: make(chan struct{}, 1)} }

// auditChunks keeps the chunks of the parallel path from a verification to
// the next (sparing the garbage collector 2 MB a verification). The first
// chunk of a verification is always new: one that checks a log of one
// block (and the fuzzer's) never takes one from here.
var auditChunks = sync.Pool{New: func() any { return newAuditChunk() }}

// putAuditChunk puts back c, which no goroutine holds any more.
func putAuditChunk(c *auditChunk) {
	select {
	case <-c.done: // prepared for nothing (verification takes all back)
	default:
	}
	c.release(auditChunkSize)
	c.n, c.panicked = 0, nil
	auditChunks.Put(c)
}

// prepareOrPanic is prepare, that records a panic in c.panicked.
func (c *auditChunk) prepareOrPanic(h *auditHasher, st *AuditStore) {
	c.panicked = nil
	defer func() { c.panicked = recover() }()
	c.prepare(h, st)
}

// prepare prepares c's lines into c.pres, as far as its first line that is
// not a record (the chain breaks there at the latest).
func (c *auditChunk) prepare(h *auditHasher, st *AuditStore) {
	if cap(c.pres) == 0 {
		c.pres = make([]auditPre, 0, c.n/256+1)
	}
	c.pres = c.pres[:0]
	for data := c.buf[:c.n]; len(data) > 0; {
		i := bytes.IndexByte(data, '\n')
		c.pres = append(c.pres, auditPre{})
		p := &c.pres[len(c.pres)-1]
		h.prepare(p, data[:i], st)
		if p.reason != "" {
			return
		}
		data = data[i+1:]
	}
}

// release drops what a long line or many short records grew c to beyond
// its size, lest every block keep the largest one's (c.pres points into
// c.buf).
func (c *auditChunk) release(size int) {
	if cap(c.buf) > 2*size || cap(c.pres) > size/64 {
		c.buf, c.pres = nil, nil
	}
	c.pres = c.pres[:0]
}

// auditBlockReader reads a log in blocks of whole lines.
type auditBlockReader struct {
	r     io.Reader
	size  int
	carry []byte // the start of a line, after the last block's last end of line
	err   error  // what ended the input: io.EOF, or r's failure
	torn  bool   // the input ended with bytes after the last end of line
	empty int    // consecutive empty reads
	read  int64  // the bytes read
}

// next reads the next block into c: the bytes carried from the last one,
// then what r gives, up to a full block, cut after the last end of line; a
// line longer than the block grows it. Once the input has ended, br.err is
// set and c holds its last complete lines, if any.
func (br *auditBlockReader) next(c *auditChunk) {
	buf := c.buf
	if cap(buf) < br.size {
		buf = make([]byte, 0, br.size)
	}
	buf = buf[:0:br.size] // no more, were it kept from a larger block
	buf = append(buf, br.carry...)
	br.carry = br.carry[:0]
	n, scanned, cut := len(buf), 0, 0
	buf = buf[:cap(buf)]
	for {
		for n < len(buf) && br.err == nil {
			m, err := br.r.Read(buf[n:])
			if m < 0 || m > len(buf)-n {
				br.err = fmt.Errorf("the reader returned %d bytes read into %d", m, len(buf)-n)
				break
			}
			n += m
			br.read += int64(m)
			switch {
			case err != nil:
				br.err = err
			case m > 0:
				br.empty = 0
			default:
				// As bufio.Reader: a reader that keeps giving nothing fails.
				if br.empty++; br.empty >= 100 {
					br.err = io.ErrNoProgress
				}
			}
		}
		if i := bytes.LastIndexByte(buf[scanned:n], '\n'); i >= 0 {
			cut = scanned + i + 1
			break
		}
		if br.err != nil {
			break
		}
		scanned = n
		buf = slices.Grow(buf[:n], n)
		buf = buf[:cap(buf)]
	}
	c.buf, c.n, c.end = buf[:n], cut, br.read-int64(n-cut)
	if br.err == nil {
		br.carry = append(br.carry, buf[cut:n]...)
	} else {
		br.torn = cut < n
	}
}
