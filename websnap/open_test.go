package websnap

import (
	"context"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/moteur/moteur/sidetable"
	"github.com/moteur/moteur/tools/web"
)

func TestConcurrentFirstUseOpensOnce(t *testing.T) {
	s := New(Config{Path: filepath.Join(t.TempDir(), "moteur.db")})
	defer s.Close()
	var opens atomic.Int32
	s.openDB = func(ctx context.Context, cfg sidetable.Config) (*sidetable.DB, error) {
		opens.Add(1)
		return sidetable.Open(ctx, cfg)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			err := s.Session("s").Put(context.Background(), web.Snapshot{Path: "web://example.com/" + string(rune('a'+i)) + ".md", Text: "x"})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := opens.Load(); n != 1 {
		t.Errorf("the file was opened %d times by 8 first uses, want 1", n)
	}
}
