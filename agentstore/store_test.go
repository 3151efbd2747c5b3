package agentstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/internal/dbtest"
)

// clock is a test clock that moves one second per call.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

// config is the Config of a store on b.
func config(b dbtest.Backend) Config { return Config{Path: b.Path, URL: b.URL} }

func openAt(t *testing.T, b dbtest.Backend) *Store {
	t.Helper()
	c := &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	n := 0
	var mu sync.Mutex
	cfg := config(b)
	cfg.Now = c.now
	cfg.NewID = func() (string, error) {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("ag-%016d", n), nil
	}
	s, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func newStore(t *testing.T, b dbtest.Backend) *Store { return openAt(t, b) }

func smart(name string) agentconfig.Agent {
	return agentconfig.Agent{Name: name, Description: "does things", Config: agentconfig.CustomAgentConfig{
		AgentMode: agentconfig.ModeSmartReasoning, Temperature: 0.2, KnowledgeBases: []string{"docs"}}}
}

func TestCRUD(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, bk dbtest.Backend) {
		s := newStore(t, bk)
		ctx := context.Background()
		in := smart("Support")
		in.Builtin = true // ignored: a stored agent is never built-in
		a, err := s.Create(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if a.ID != "ag-0000000000000001" || a.Builtin || a.Created.IsZero() || !a.Created.Equal(a.Updated) {
			t.Fatalf("created %+v", a)
		}
		if a.Config.MaxCompletionTokens != agentconfig.DefaultMaxTokensSmartReasoning || a.Config.KBSelectionMode != agentconfig.SelectSelected {
			t.Errorf("EnsureDefaults not applied: %+v", a.Config)
		}
		got, err := s.Get(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Name != "Support" || got.Description != "does things" || got.Config.Temperature != 0.2 ||
			!got.Created.Equal(a.Created) || strings.Join(got.Config.KnowledgeBases, ",") != "docs" {
			t.Errorf("read back %+v", got)
		}
		b, err := s.Create(ctx, agentconfig.Agent{ID: "my-agent", Name: "alpha"})
		if err != nil {
			t.Fatal(err)
		}
		if b.ID != "my-agent" || b.Config.AgentMode != agentconfig.ModeQuickAnswer {
			t.Errorf("given id / default mode: %+v", b)
		}
		list, err := s.List(ctx)
		if err != nil || len(list) != 2 || list[0].Name != "alpha" || list[1].Name != "Support" {
			t.Fatalf("list by name ignoring case: %+v, %v", list, err)
		}

		got.Name, got.Config.Temperature = "Support desk", 1.1
		up, err := s.Update(ctx, got)
		if err != nil {
			t.Fatal(err)
		}
		if !up.Created.Equal(a.Created) || !up.Updated.After(a.Updated) {
			t.Errorf("update times: %v %v", up.Created, up.Updated)
		}
		again, _ := s.Get(ctx, a.ID)
		if again.Name != "Support desk" || again.Config.Temperature != 1.1 || !again.Updated.Equal(up.Updated) {
			t.Errorf("after update %+v", again)
		}
		if _, err := s.Update(ctx, agentconfig.Agent{ID: "nope", Name: "x"}); !errors.Is(err, ErrNotFound) {
			t.Errorf("update unknown: %v", err)
		}

		if err := s.Delete(ctx, a.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Get(ctx, a.ID); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), a.ID) {
			t.Errorf("get after delete: %v", err)
		}
		if err := s.Delete(ctx, a.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("delete twice: %v", err)
		}
		if list, _ := s.List(ctx); len(list) != 1 || list[0].ID != "my-agent" {
			t.Errorf("after delete %+v", list)
		}
	})
}

func TestUniqueness(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, bk dbtest.Backend) {
		s := newStore(t, bk)
		ctx := context.Background()
		a, err := s.Create(ctx, smart("Support"))
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.Create(ctx, smart("Other"))
		if err != nil {
			t.Fatal(err)
		}
		for name, in := range map[string]agentconfig.Agent{
			"same name, other case": smart("  SUPPORT "),
			"name is another's id":  smart(a.ID),
			"id taken":              {ID: a.ID, Name: "Fresh"},
			"id is another's name":  {ID: "Other", Name: "Fresh2"},
		} {
			if _, err := s.Create(ctx, in); !errors.Is(err, ErrExists) {
				t.Errorf("%s: %v", name, err)
			}
		}
		b.Name = "support"
		if _, err := s.Update(ctx, b); !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "support") {
			t.Errorf("rename onto another: %v", err)
		}
		b.Name = "OTHER" // its own name in another case is fine
		if _, err := s.Update(ctx, b); err != nil {
			t.Errorf("rename itself: %v", err)
		}
		list, _ := s.List(ctx)
		if len(list) != 2 || list[0].Name != "OTHER" {
			t.Errorf("refused writes left %+v", list)
		}
	})
}

func TestBuiltinIDsRefused(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, bk dbtest.Backend) {
		s := newStore(t, bk)
		ctx := context.Background()
		if !agentconfig.IsBuiltinID("builtin-quick-answer") {
			t.Fatal("the catalogue has no builtin-quick-answer")
		}
		if _, err := s.Create(ctx, agentconfig.Agent{ID: "builtin-quick-answer", Name: "Mine"}); !errors.Is(err, ErrBuiltin) {
			t.Errorf("create with a built-in id: %v", err)
		}
		if _, err := s.Create(ctx, agentconfig.Agent{Name: "builtin-smart-reasoning"}); !errors.Is(err, ErrBuiltin) {
			t.Errorf("create named as a built-in id: %v", err)
		}
		if _, err := s.Update(ctx, agentconfig.Agent{ID: "builtin-quick-answer", Name: "Mine"}); !errors.Is(err, ErrBuiltin) {
			t.Errorf("update a built-in: %v", err)
		}
		if err := s.Delete(ctx, "builtin-quick-answer"); !errors.Is(err, ErrBuiltin) {
			t.Errorf("delete a built-in: %v", err)
		}
		a, err := s.Create(ctx, agentconfig.Agent{Name: "Mine"})
		if err != nil {
			t.Fatal(err)
		}
		a.Name = "builtin-data-analyst"
		if _, err := s.Update(ctx, a); !errors.Is(err, ErrBuiltin) {
			t.Errorf("rename to a built-in id: %v", err)
		}
		if list, _ := s.List(ctx); len(list) != 1 || list[0].Name != "Mine" {
			t.Errorf("stored %+v", list)
		}
	})
}

func TestResolveOrder(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, bk dbtest.Backend) {
		s := newStore(t, bk)
		ctx := context.Background()
		quickEN, err := agentconfig.BuiltinByID("builtin-quick-answer", i18n.EN)
		if err != nil {
			t.Fatal(err)
		}
		quickFR, _ := agentconfig.BuiltinByID("builtin-quick-answer", i18n.FR)
		alpha, _ := s.Create(ctx, agentconfig.Agent{ID: "ag-alpha", Name: "Alpha"})
		// A stored agent may take a built-in's display name: stored names win.
		shadow, err := s.Create(ctx, agentconfig.Agent{Name: quickEN.Name})
		if err != nil {
			t.Fatal(err)
		}
		// Rows the rules would refuse, written by hand, to show that ids win
		// over names: "beta" is one agent's id and another's name.
		db := bk.Raw(t)
		for _, q := range []string{
			`INSERT INTO agents VALUES ('beta', 'Gamma', '', '{"agent_mode":"quick-answer"}', 1, 1)`,
			`INSERT INTO agents VALUES ('g2', 'beta', '', '{"agent_mode":"quick-answer"}', 1, 1)`,
		} {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range []struct {
			ref  string
			l    i18n.Lang
			want string
		}{
			{"builtin-quick-answer", i18n.EN, "builtin-quick-answer"},
			{"ag-alpha", i18n.EN, alpha.ID},
			{"alpha", i18n.EN, alpha.ID},
			{" Alpha ", i18n.EN, alpha.ID},
			{strings.ToUpper(quickEN.Name), i18n.EN, shadow.ID},
			{quickFR.Name, i18n.FR, "builtin-quick-answer"},
			{"beta", i18n.EN, "beta"},
			{"gamma", i18n.EN, "beta"},
		} {
			a, err := s.Resolve(ctx, c.ref, c.l)
			if err != nil || a.ID != c.want {
				t.Errorf("Resolve(%q, %s) = %s, %v; want %s", c.ref, c.l, a.ID, err, c.want)
			}
		}
		if a, _ := s.Resolve(ctx, "builtin-quick-answer", i18n.FR); !a.Builtin || a.Name != quickFR.Name {
			t.Errorf("built-in named in the language: %+v", a)
		}
		for _, ref := range []string{"nobody", "", "  "} {
			if _, err := s.Resolve(ctx, ref, i18n.EN); !errors.Is(err, ErrNotFound) {
				t.Errorf("Resolve(%q): %v", ref, err)
			}
		}
		all, err := s.All(ctx, i18n.EN)
		if err != nil {
			t.Fatal(err)
		}
		builtins, _ := agentconfig.Builtins(i18n.EN)
		if len(all) != len(builtins)+4 || !all[0].Builtin || all[len(builtins)].Builtin || all[len(builtins)].Name != "Alpha" {
			t.Errorf("All: %d agents, %+v", len(all), all)
		}
	})
}

func TestValidationNamesTheField(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, bk dbtest.Backend) {
		s := newStore(t, bk)
		ctx := context.Background()
		for want, in := range map[string]agentconfig.Agent{
			"name":               {Name: "  "},
			"id":                 {ID: "has space", Name: "ok"},
			"description":        {Name: "ok2", Description: "bell\a"},
			"temperature":        {Name: "ok3", Config: agentconfig.CustomAgentConfig{Temperature: 5}},
			"access_level":       {Name: "ok4", Config: agentconfig.CustomAgentConfig{AccessLevel: "root"}},
			"knowledge_bases[1]": {Name: "ok5", Config: agentconfig.CustomAgentConfig{KnowledgeBases: []string{"a", "a"}}},
		} {
			_, err := s.Create(ctx, in)
			var fe *agentconfig.FieldError
			if !errors.As(err, &fe) || fe.Field != want || !errors.Is(err, agentconfig.ErrInvalid) {
				t.Errorf("%s: %v (%+v)", want, err, fe)
			}
		}
		long := strings.Repeat("é", MaxNameLen+1)
		if _, err := s.Create(ctx, agentconfig.Agent{Name: long}); err == nil || !strings.Contains(err.Error(), "name: longer") {
			t.Errorf("long name: %v", err)
		}
		a, err := s.Create(ctx, agentconfig.Agent{Name: "fine", Description: "two\nlines"})
		if err != nil {
			t.Fatal(err)
		}
		a.Config.Temperature = 9
		_, err = s.Update(ctx, a)
		var fe *agentconfig.FieldError
		if !errors.As(err, &fe) || fe.Field != "temperature" {
			t.Errorf("update: %v", err)
		}
		if list, _ := s.List(ctx); len(list) != 1 || list[0].Config.Temperature == 9 {
			t.Errorf("refused writes left %+v", list)
		}
	})
}

func TestConcurrentOpensMigrateOnce(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, bk dbtest.Backend) {
		const n = 8
		stores := make([]*Store, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { stores[i], errs[i] = Open(context.Background(), config(bk)) })
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("open %d: %v", i, err)
			}
			defer stores[i].Close()
		}
		for i := range n {
			wg.Go(func() {
				_, errs[i] = stores[i].Create(context.Background(), agentconfig.Agent{Name: fmt.Sprintf("agent %d", i)})
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("create %d: %v", i, err)
			}
		}
		var versions, applied int
		if err := bk.Raw(t).QueryRow(`SELECT count(*), count(DISTINCT version) FROM agent_migrations`).Scan(&applied, &versions); err != nil {
			t.Fatal(err)
		}
		if applied != len(migrations) || versions != len(migrations) {
			t.Errorf("%d migration rows, %d versions; want %d", applied, versions, len(migrations))
		}
		if list, _ := stores[0].List(context.Background()); len(list) != n {
			t.Errorf("%d agents, want %d", len(list), n)
		}
	})
}

func TestReopenKeepsData(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, bk dbtest.Backend) {
		s := openAt(t, bk)
		a, err := s.Create(context.Background(), smart("Kept"))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s2 := openAt(t, bk)
		got, err := s2.Get(context.Background(), a.ID)
		if err != nil || got.Name != "Kept" || !got.Created.Equal(a.Created) || got.Config.Temperature != 0.2 {
			t.Fatalf("after reopen %+v, %v", got, err)
		}
		if bk.Postgres() {
			return
		}
		fi, err := os.Stat(bk.Path)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("database file mode: %v %v", fi.Mode(), err)
		}
	})
}

func TestBadRowsGiveClearErrors(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, bk dbtest.Backend) {
		s := newStore(t, bk)
		ctx := context.Background()
		good, _ := s.Create(ctx, agentconfig.Agent{Name: "good"})
		db := bk.Raw(t)
		for _, q := range []string{
			`INSERT INTO agents VALUES ('ag-broken', 'broken', '', 'not json', 1, 1)`,
			`INSERT INTO agents VALUES ('ag-wrong', 'wrong', '', '{"agent_mode":"bogus"}', 1, 1)`,
		} {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		_, err := s.Get(ctx, "ag-broken")
		if !errors.Is(err, ErrBadRow) || !strings.Contains(err.Error(), "ag-broken") || !strings.Contains(err.Error(), "not valid JSON") {
			t.Errorf("broken JSON: %v", err)
		}
		_, err = s.Get(ctx, "ag-wrong")
		var fe *agentconfig.FieldError
		if !errors.Is(err, ErrBadRow) || !errors.As(err, &fe) || fe.Field != "agent_mode" {
			t.Errorf("invalid config: %v", err)
		}
		if _, err := s.List(ctx); !errors.Is(err, ErrBadRow) {
			t.Errorf("list: %v", err)
		}
		// A bad row can still be removed.
		for _, id := range []string{"ag-broken", "ag-wrong"} {
			if err := s.Delete(ctx, id); err != nil {
				t.Errorf("delete %s: %v", id, err)
			}
		}
		if list, err := s.List(ctx); err != nil || len(list) != 1 || list[0].ID != good.ID {
			t.Errorf("after removing the bad rows: %+v, %v", list, err)
		}
	})
}

func TestNewerSchemaRefused(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, bk dbtest.Backend) {
		s := newStore(t, bk)
		s.Close()
		if _, err := bk.Raw(t).Exec(`INSERT INTO agent_migrations VALUES (99, 'later')`); err != nil {
			t.Fatal(err)
		}
		_, err := Open(context.Background(), config(bk))
		if err == nil || !strings.Contains(err.Error(), "newer than this Moteur") {
			t.Errorf("newer schema: %v", err)
		}
	})
}

func TestNotADatabaseRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "moteur.db")
	if err := os.WriteFile(path, []byte(strings.Repeat("not sqlite ", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), Config{Path: path}); err == nil {
		t.Fatal("opened a file that is not a database")
	}
	if _, err := Open(context.Background(), Config{}); err == nil {
		t.Fatal("opened without a path")
	}
}
