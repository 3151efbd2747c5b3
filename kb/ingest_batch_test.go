package kb

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/moteur/moteur/kb/chunk"
)

// TestGatherWaitsForABatch: the writer takes the documents that the
// workers hand over after the first one, not only those already waiting,
// up to a batch; it stops at the end of the files, at a full batch, at a
// document that stops the ingestion and when the context ends. The wait
// is an hour here, so that only those conditions can end a batch.
func TestGatherWaitsForABatch(t *testing.T) {
	const hour = time.Hour
	wait := time.NewTimer(hour)
	defer wait.Stop()
	ctx := context.Background()
	send := func(ready chan<- *prepared, ps []*prepared, closeAfter bool) {
		for _, p := range ps {
			ready <- p
		}
		if closeAfter {
			close(ready)
		}
	}
	docs := func(n int) []*prepared {
		ps := make([]*prepared, n)
		for i := range ps {
			ps[i] = &prepared{i: i, chunks: make([]chunk.Chunk, 1)}
		}
		return ps
	}

	// Handed over one by one, unbuffered, after gather started waiting.
	ready := make(chan *prepared)
	ps := docs(5)
	go send(ready, ps[1:], true)
	if got := gather(ctx, ps[0], ready, wait, hour); len(got) != 5 {
		t.Fatalf("the end of the files: a batch of %d documents, want 5", len(got))
	}

	ps = docs(maxBatchDocs + 3)
	ready = make(chan *prepared, len(ps))
	send(ready, ps[1:], false)
	got := gather(ctx, ps[0], ready, wait, hour)
	if len(got) != maxBatchDocs {
		t.Fatalf("a full batch: %d documents, want %d", len(got), maxBatchDocs)
	}
	if rest := gather(ctx, <-ready, ready, wait, 0); len(rest) == 0 || rest[0].i != maxBatchDocs {
		t.Fatalf("the next batch starts with document %d, want %d", rest[0].i, maxBatchDocs)
	}

	ready = make(chan *prepared)
	ps = docs(4)
	ps[2].down = errors.New("the embedding server is down")
	go send(ready, ps[1:3], false)
	if got := gather(ctx, ps[0], ready, wait, hour); len(got) != 3 {
		t.Fatalf("a document that stops the ingestion: a batch of %d, want 3 (up to it)", len(got))
	}

	ready = make(chan *prepared)
	cctx, cancel := context.WithCancel(ctx)
	ps = docs(2)
	go func() { ready <- ps[1]; cancel() }()
	if got := gather(cctx, ps[0], ready, wait, hour); len(got) != 2 {
		t.Fatalf("a cancelled context: a batch of %d, want the 2 taken before", len(got))
	}

	// And the wait itself ends a batch when no document comes.
	ready = make(chan *prepared)
	if got := gather(ctx, docs(1)[0], ready, wait, time.Millisecond); len(got) != 1 {
		t.Fatalf("the wait: a batch of %d, want 1", len(got))
	}
}
