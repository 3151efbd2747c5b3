package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/effect"
	"github.com/moteur/moteur/redact"
	"github.com/moteur/moteur/tools"
)

// MaxFetchItems is the most pages one web_fetch call reads.
const MaxFetchItems = 8

type fetchTool struct{ s *scope }

func (*fetchTool) Name() string { return FetchName }

func (*fetchTool) Description() string {
	return "Read web pages as Markdown (HTML, main content only) or text (PDF, plain text). " +
		"Each item is a URL (http or https) or a result id wN from web_search; up to 8 pages are read in parallel. " +
		fmt.Sprintf("limit is in characters, %d at most and shared by all the items of a call; ", FetchBudget) +
		"continue a page with the same url and offset=next_offset, or read its whole text with read_file on the snapshot path (web://…) it gives. " +
		"Each page reports status success, failed (with a code and whether to retry) or skipped; one failure does not stop the others. Cite a page as [wN]."
}

func (*fetchTool) Schema() json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{
"items":{"type":"array","minItems":1,"maxItems":%d,"items":{"type":"object","properties":{
"url":{"type":"string","description":"An http(s) URL or a web result id (w3)."},
"offset":{"type":"integer","minimum":0,"description":"Character to start from (default 0): the next_offset of a previous call."},
"limit":{"type":"integer","minimum":1,"maximum":%d,"description":"Characters to return (default and most %d, shared by the items)."}
},"required":["url"],"additionalProperties":false}}
},"required":["items"],"additionalProperties":false}`, MaxFetchItems, FetchBudget, FetchBudget))
}

func (*fetchTool) Risk() effect.Risk { return effect.RiskRead }
func (*fetchTool) Concurrent() bool  { return true }

// Retrieval implements tools.Retrieval: a page may change between turns.
func (*fetchTool) Retrieval() bool { return true }

// Timeout implements tools.TimeoutOverrider: the page budget (pages are
// read in parallel) and the tool margin.
func (t *fetchTool) Timeout() time.Duration { return t.s.cfg.PageTimeout + t.s.cfg.ToolMargin }

// FetchItem is one page asked of web_fetch.
type FetchItem struct {
	URL    string `json:"url"`
	Offset int    `json:"offset,omitempty"`
	Limit  int    `json:"limit,omitempty"`
}

type fetchArgs struct {
	Items []FetchItem `json:"items"`
}

// parseFetchArgs reads and checks the arguments.
func parseFetchArgs(raw json.RawMessage) ([]FetchItem, error) {
	var a fetchArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("invalid arguments: %w", err)
	}
	if len(a.Items) == 0 {
		return nil, errors.New("items is empty: give at least one {url}")
	}
	if len(a.Items) > MaxFetchItems {
		return nil, fmt.Errorf("%d items: at most %d pages a call", len(a.Items), MaxFetchItems)
	}
	for i, it := range a.Items {
		if it.Offset < 0 || it.Limit < 0 {
			return nil, fmt.Errorf("items[%d]: offset and limit cannot be negative", i)
		}
		if it.Limit == 0 || it.Limit > FetchBudget {
			a.Items[i].Limit = FetchBudget
		}
	}
	return a.Items, nil
}

// pageResult is one item's outcome.
type pageResult struct {
	item   FetchItem
	url    *url.URL
	status string // success, failed, skipped
	err    *fetchError
	snap   Snapshot
	ref    cite.Ref
}

func (t *fetchTool) Execute(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	items, err := parseFetchArgs(raw)
	if err != nil {
		return errResult(err)
	}
	results := t.s.fetchAll(ctx, items, 0, FetchBudget)
	return renderFetch(results), nil
}

// fetchAll reads the items in parallel (MaxParallel at once) and shares
// budget characters out; timeout bounds each page (0: the page budget).
func (s *scope) fetchAll(ctx context.Context, items []FetchItem, timeout time.Duration, budget int) []*pageResult {
	tab := s.ids.table(ctx)
	resolve := func(a string) (string, bool) {
		r, ok := tab.resolve(a)
		return r.ID, ok
	}
	results := make([]*pageResult, len(items))
	seen := map[string]bool{}
	sem := make(chan struct{}, s.cfg.MaxParallel)
	var wg sync.WaitGroup
	for i, it := range items {
		r := &pageResult{item: it}
		results[i] = r
		u, err := parseTarget(it.URL, resolve)
		if err != nil {
			r.status, r.err = "failed", err.(*fetchError)
			continue
		}
		r.url = u
		key := fmt.Sprintf("%s\x00%d", u, it.Offset)
		if seen[key] {
			r.status, r.err = "skipped", failure(codeDuplicate, false, "the same page and offset are asked above")
			continue
		}
		seen[key] = true
		wg.Go(func() {
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-ctx.Done():
				r.status, r.err = "skipped", failure(codeCanceled, true, "the call was canceled before this page was read")
				return
			}
			s.readOne(ctx, r, timeout)
		})
	}
	wg.Wait()
	share(results, budget)
	for _, r := range results {
		if r.status == "success" {
			r.ref = tab.alias(r.url.String(), r.snap.Title)
		}
	}
	return results
}

// readOne reads one page: from its snapshot when the model continues a
// page read before (offset > 0), from the web otherwise.
func (s *scope) readOne(ctx context.Context, r *pageResult, timeout time.Duration) {
	path := snapshotPath(r.url.String())
	if r.item.Offset > 0 {
		if snap, err := s.cfg.Snapshots.Get(ctx, path); err == nil {
			r.status, r.snap = "success", snap
			return
		}
	}
	f, err := s.fetcher.fetch(ctx, r.url, timeout)
	if err != nil {
		var fe *fetchError
		if !errors.As(err, &fe) {
			fe = failure(codeNetwork, true, "%v", err)
		}
		r.status, r.err = "failed", fe
		return
	}
	r.status = "success"
	// Masked as a snapshot stores it, so that the offsets shown now stay
	// true when a later call or read_file continues the page.
	text, _ := redact.Lines(f.Text)
	r.snap = Snapshot{Path: path, URL: r.url.String(), FinalURL: f.FinalURL, Title: f.Title, Format: f.Format,
		Text: text, Truncated: f.Truncated, Fetched: time.Now()}
	if err := s.cfg.Snapshots.Put(ctx, r.snap); err != nil {
		r.snap.Path = "" // the text shown stays; the snapshot is not offered
	}
}

// share gives each page its part of the shared budget: the pages wanting
// less than an equal share keep what they want, the rest is split among
// the others.
func share(results []*pageResult, budget int) {
	var idx []int
	wants := map[int]int{}
	for i, r := range results {
		if r.status != "success" {
			continue
		}
		total := len([]rune(r.snap.Text))
		if r.item.Offset >= total && total > 0 {
			r.status, r.err = "failed", failure(codeOffsetPastEnd, false, "offset %d is past the end of the page (%d characters)", r.item.Offset, total)
			continue
		}
		idx = append(idx, i)
		wants[i] = min(r.item.Limit, total-r.item.Offset)
	}
	left := budget
	for n := len(idx); n > 0; n-- {
		// The page wanting least takes its share first.
		k := 0
		for j := range idx {
			if wants[idx[j]] < wants[idx[k]] {
				k = j
			}
		}
		i := idx[k]
		idx = append(idx[:k], idx[k+1:]...)
		give := min(wants[i], left/n)
		results[i].item.Limit = give
		left -= give
	}
}
