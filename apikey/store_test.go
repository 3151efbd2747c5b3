package apikey

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moteur/moteur/internal/dbtest"
)

func newStore(t *testing.T, b dbtest.Backend) *Store {
	t.Helper()
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	s, err := Open(context.Background(), Config{Path: b.Path, URL: b.URL, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestCreateVerifyRevoke(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, bk dbtest.Backend) {
		s := newStore(t, bk)
		ctx := context.Background()
		secret, k, err := s.Create(ctx, "ci", Scope{Bases: []string{"docs"}, Agents: []string{"ag-1"}, Wait: true})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(secret, "mk_"+k.ID+"_") || len(secret)-len("mk_"+k.ID+"_") < 32 {
			t.Fatalf("secret %q for id %s", secret, k.ID)
		}
		got, err := s.Verify(ctx, secret)
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != k.ID || got.Name != "ci" || !got.Scope.Wait || strings.Join(got.Scope.Bases, ",") != "docs" ||
			strings.Join(got.Scope.Agents, ",") != "ag-1" || !got.Created.Equal(k.Created) {
			t.Errorf("verified %+v, created %+v", got, k)
		}
		other, _, err := s.Create(ctx, "web", Scope{})
		if err != nil {
			t.Fatal(err)
		}
		if other == secret {
			t.Fatal("two keys, one secret")
		}
		list, err := s.List(ctx)
		if err != nil || len(list) != 2 || list[0].Name != "ci" || list[1].Name != "web" {
			t.Fatalf("list %+v, %v", list, err)
		}
		if err := s.Revoke(ctx, "ci"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Verify(ctx, secret); !errors.Is(err, ErrInvalid) {
			t.Errorf("a revoked key verified: %v", err)
		}
		if _, err := s.Verify(ctx, other); err != nil {
			t.Errorf("the other key after revoking one: %v", err)
		}
		if err := s.Revoke(ctx, "ci"); !errors.Is(err, ErrNotFound) {
			t.Errorf("revoke twice: %v", err)
		}
		if list, _ := s.List(ctx); len(list) != 1 || list[0].Name != "web" {
			t.Errorf("after revoke %+v", list)
		}
		// A revoked key's name may be used again; its old secret stays dead.
		again, k2, err := s.Create(ctx, "ci", Scope{})
		if err != nil || k2.ID == k.ID {
			t.Fatalf("reuse a revoked name: %v", err)
		}
		if _, err := s.Verify(ctx, secret); !errors.Is(err, ErrInvalid) {
			t.Errorf("old secret after the name's reuse: %v", err)
		}
		if err := s.Revoke(ctx, k2.ID); err != nil { // by id
			t.Fatal(err)
		}
		if _, err := s.Verify(ctx, again); !errors.Is(err, ErrInvalid) {
			t.Errorf("revoked by id: %v", err)
		}
	})
}

func TestCreateRefuses(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, bk dbtest.Backend) {
		s := newStore(t, bk)
		ctx := context.Background()
		if _, _, err := s.Create(ctx, "ci", Scope{}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Create(ctx, "ci", Scope{}); !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), `"ci"`) {
			t.Errorf("same name: %v", err)
		}
		for name, c := range map[string]struct {
			name string
			sc   Scope
			want string
		}{
			"empty name":  {"", Scope{}, "key name"},
			"padded name": {" x ", Scope{}, "key name"},
			"control":     {"a\nb", Scope{}, "key name"},
			"long":        {strings.Repeat("k", MaxNameLen+1), Scope{}, "key name"},
			"empty base":  {"b", Scope{Bases: []string{""}}, "bases[0]"},
			"twice agent": {"c", Scope{Agents: []string{"a", "a"}}, "agents[1]"},
		} {
			if _, _, err := s.Create(ctx, c.name, c.sc); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: %v", name, err)
			}
		}
		if list, _ := s.List(ctx); len(list) != 1 {
			t.Errorf("refused keys were stored: %+v", list)
		}
		if err := s.Revoke(ctx, "nobody"); !errors.Is(err, ErrNotFound) {
			t.Errorf("revoke unknown: %v", err)
		}
	})
}

func TestVerifyRefusesBadSecrets(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, bk dbtest.Backend) {
		s := newStore(t, bk)
		ctx := context.Background()
		secret, k, err := s.Create(ctx, "ci", Scope{})
		if err != nil {
			t.Fatal(err)
		}
		random := strings.TrimPrefix(secret, "mk_"+k.ID+"_")
		flip := func(s string, i int) string {
			b := []byte(s)
			if b[i] == 'A' {
				b[i] = 'B'
			} else {
				b[i] = 'A'
			}
			return string(b)
		}
		for name, bad := range map[string]string{
			"empty":           "",
			"no prefix":       strings.TrimPrefix(secret, "mk_"),
			"other prefix":    "sk_" + strings.TrimPrefix(secret, "mk_"),
			"truncated":       secret[:len(secret)-1],
			"longer":          secret + "A",
			"no separator":    "mk_" + k.ID + random,
			"upper-case id":   "mk_" + strings.ToUpper(k.ID) + "_" + random,
			"wrong secret":    flip(secret, len(secret)-3),
			"unknown id":      "mk_0123456789abcdef_" + random,
			"bad base64":      "mk_" + k.ID + "_" + random[:len(random)-1] + "!",
			"with whitespace": secret + "\n",
			"bearer included": "Bearer " + secret,
		} {
			if name == "upper-case id" && strings.ToUpper(k.ID) == k.ID {
				continue // an id of digits only: nothing to change
			}
			if _, err := s.Verify(ctx, bad); !errors.Is(err, ErrInvalid) {
				t.Errorf("%s (%q): %v", name, bad, err)
			}
		}
		if _, err := s.Verify(ctx, secret); err != nil { // the attempts were against a working key
			t.Fatalf("the good secret: %v", err)
		}
	})
}

func TestScope(t *testing.T) {
	all := Key{}
	if !all.AllowsBase("anything") || !all.AllowsAgent("anyone") {
		t.Error("an empty scope allows everything")
	}
	k := Key{Scope: Scope{Bases: []string{"docs", "rh"}, Agents: []string{"ag-1"}}}
	if !k.AllowsBase("rh") || k.AllowsBase("finance") || k.AllowsBase("") || k.AllowsBase("RH") {
		t.Error("bases")
	}
	if !k.AllowsAgent("ag-1") || k.AllowsAgent("ag-2") {
		t.Error("agents")
	}
	onlyBases := Key{Scope: Scope{Bases: []string{"docs"}}}
	if !onlyBases.AllowsAgent("ag-9") || onlyBases.AllowsBase("x") {
		t.Error("a base-only scope")
	}
}

func TestKeyJSON(t *testing.T) {
	k := Key{ID: "0123456789abcdef", Name: "ci", Scope: Scope{Bases: []string{"docs"}, Wait: true},
		Created: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	data, err := json.Marshal(k)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"0123456789abcdef","name":"ci","bases":["docs"],"agents":[],"wait":true,"created":"2026-01-01T00:00:00Z"}`
	if string(data) != want {
		t.Errorf("got  %s\nwant %s", data, want)
	}
	var back Key
	if err := json.Unmarshal(data, &back); err != nil || back.Name != "ci" || !back.Scope.Wait || back.Scope.Bases[0] != "docs" {
		t.Errorf("round trip %+v, %v", back, err)
	}
}

// TestSecretNeverStored reads every column of every table of the file and
// of its WAL and finds neither the secret nor its random part, after
// proving that the key's row is there with the secret's hash.
func TestSecretNeverStored(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, bk dbtest.Backend) {
		s := newStore(t, bk)
		ctx := context.Background()
		secret, k, err := s.Create(ctx, "ci", Scope{Bases: []string{"docs"}})
		if err != nil {
			t.Fatal(err)
		}
		random := secret[len("mk_"+k.ID+"_"):]
		db := bk.Raw(t)
		var stored []byte
		var name string
		if err := db.QueryRow(`SELECT name, sha256 FROM api_keys WHERE id = '`+k.ID+`'`).Scan(&name, &stored); err != nil {
			t.Fatalf("the key's row: %v", err)
		}
		want := sha256.Sum256([]byte(secret))
		if name != "ci" || !bytes.Equal(stored, want[:]) {
			t.Fatalf("row %q %x, want the secret's SHA-256 %x", name, stored, want)
		}
		list := `SELECT name FROM sqlite_schema WHERE type = 'table'`
		if bk.Postgres() {
			list = `SELECT tablename FROM pg_tables WHERE schemaname = 'moteur'`
		}
		tables, err := db.Query(list)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for tables.Next() {
			var n string
			tables.Scan(&n)
			names = append(names, n)
		}
		tables.Close()
		cells := 0
		for _, table := range names {
			rows, err := db.Query(fmt.Sprintf(`SELECT * FROM %q`, table))
			if err != nil {
				t.Fatal(err)
			}
			cols, _ := rows.Columns()
			for rows.Next() {
				vals := make([]any, len(cols))
				ptrs := make([]any, len(cols))
				for i := range vals {
					ptrs[i] = &vals[i]
				}
				if err := rows.Scan(ptrs...); err != nil {
					t.Fatal(err)
				}
				for i, v := range vals {
					cells++
					text := fmt.Sprint(v)
					if b, ok := v.([]byte); ok {
						text = string(b)
					}
					if strings.Contains(text, random) || strings.Contains(text, secret) {
						t.Errorf("%s.%s holds the secret", table, cols[i])
					}
				}
			}
			rows.Close()
		}
		if cells == 0 {
			t.Fatal("read no cell")
		}
		s.Close()
		if bk.Postgres() {
			return // no file: the rows are all there is
		}
		for _, f := range []string{bk.Path, bk.Path + "-wal"} {
			raw, err := readIfExists(f)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(raw, []byte(random)) {
				t.Errorf("%s holds the secret's bytes", f)
			}
		}
	})
}

func TestConcurrentOpensAndCreates(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, bk dbtest.Backend) {
		const n = 6
		stores := make([]*Store, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { stores[i], errs[i] = Open(context.Background(), Config{Path: bk.Path, URL: bk.URL}) })
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("open %d: %v", i, err)
			}
			defer stores[i].Close()
		}
		secrets := make([]string, n)
		for i := range n {
			wg.Go(func() { secrets[i], _, errs[i] = stores[i].Create(context.Background(), "same", Scope{}) })
		}
		wg.Wait()
		made := 0
		for i, err := range errs {
			switch {
			case err == nil:
				made++
				if _, err := stores[(i+1)%n].Verify(context.Background(), secrets[i]); err != nil {
					t.Errorf("verify in another store: %v", err)
				}
			case !errors.Is(err, ErrExists):
				t.Errorf("create %d: %v", i, err)
			}
		}
		if made != 1 {
			t.Errorf("%d keys named alike, want 1", made)
		}
		var applied int
		if err := bk.Raw(t).QueryRow(`SELECT count(*) FROM apikey_migrations`).Scan(&applied); err != nil || applied != len(migrations) {
			t.Errorf("%d migrations applied, want %d (%v)", applied, len(migrations), err)
		}
	})
}

func FuzzParseSecret(f *testing.F) {
	f.Add("mk_0123456789abcdef_" + strings.Repeat("A", 43))
	f.Add("mk__")
	f.Add("mk_0123456789abcdef_")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		id, ok := parseSecret(s)
		if ok && (!strings.HasPrefix(s, "mk_"+id+"_") || len(id) != 16) {
			t.Fatalf("parsed %q as id %q", s, id)
		}
	})
}

func readIfExists(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

func TestRandSeam(t *testing.T) {
	path := filepath.Join(t.TempDir(), "moteur.db")
	seed := bytes.Repeat([]byte{0xab}, 40)
	s, err := Open(context.Background(), Config{Path: path, Rand: bytes.NewReader(seed)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	secret, k, err := s.Create(context.Background(), "fixed", Scope{})
	if err != nil {
		t.Fatal(err)
	}
	want := "mk_abababababababab_" + base64.RawURLEncoding.EncodeToString(seed[8:])
	if secret != want || k.ID != "abababababababab" {
		t.Errorf("secret %q id %s, want %q", secret, k.ID, want)
	}
	// The reader is exhausted: no key, and nothing stored.
	if _, _, err := s.Create(context.Background(), "second", Scope{}); err == nil || !strings.Contains(err.Error(), "random") {
		t.Errorf("short randomness: %v", err)
	}
	if list, _ := s.List(context.Background()); len(list) != 1 {
		t.Errorf("%d keys", len(list))
	}
}
