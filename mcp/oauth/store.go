package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/moteur/moteur/atomicfile"
	"github.com/moteur/moteur/atrest"
)

// Purpose is the at-rest subkey purpose of the token files; no other use
// shares it.
const Purpose = "moteur mcp oauth v1"

// DirName is the store's directory under the user's data directory.
const DirName = "mcp-oauth"

// fileExt names a token file: sealed bytes, never JSON in clear.
const fileExt = ".sealed"

// StoreConfig configures a Store. Both fields are required.
type StoreConfig struct {
	// Dir holds the token files, typically filepath.Join($MOTEUR_HOME,
	// DirName). It is created (0700) on the first save.
	Dir string
	// Key seals the files (atrest.Key with Purpose).
	Key *atrest.Key
}

// Store keeps one token file per server. It is safe for concurrent use.
type Store struct {
	dir string
	key *atrest.Key

	mu      sync.Mutex
	locks   map[string]chan struct{} // per file: one refresh at a time
	refused map[string]string        // per file: a refresh token the server refused
}

// NewStore returns the store of cfg.
func NewStore(cfg StoreConfig) (*Store, error) {
	if cfg.Dir == "" {
		return nil, errors.New("oauth token store: no directory given")
	}
	if cfg.Key == nil {
		return nil, errors.New("oauth token store: no at-rest key given (tokens are never kept in clear)")
	}
	return &Store{dir: cfg.Dir, key: cfg.Key, locks: map[string]chan struct{}{}, refused: map[string]string{}}, nil
}

// grant is what is kept of one login: the tokens and what a refresh needs.
// Its String and GoString never show a token or a secret.
type grant struct {
	Server       string    `json:"server"`
	URL          string    `json:"url"`
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	Scopes       []string  `json:"scopes,omitempty"`
	// WantScopes are the scopes a server asked for in a 403
	// insufficient_scope, for the next login to request (step-up).
	WantScopes   []string  `json:"want_scopes,omitempty"`
	ClientID     string    `json:"client_id"`
	ClientSecret string    `json:"client_secret,omitempty"`
	AuthStyle    int       `json:"auth_style,omitempty"` // oauth2.AuthStyle
	TokenURL     string    `json:"token_url"`
	Resource     string    `json:"resource,omitempty"`
	Saved        time.Time `json:"saved"`
}

func (g grant) String() string {
	return fmt.Sprintf("oauth grant for %q (%s): access token [REDACTED], refresh token %s, expiry %s",
		g.Server, redactURL(g.URL), presence(g.RefreshToken), g.Expiry.Format(time.RFC3339))
}

// GoString keeps %#v from printing the fields.
func (g grant) GoString() string { return g.String() }

func presence(s string) string {
	if s == "" {
		return "none"
	}
	return "[REDACTED]"
}

// expired reports whether the access token is expired at now, or will be
// within skew; a token with no known expiry never is.
func (g *grant) expired(now time.Time, skew time.Duration) bool {
	return !g.Expiry.IsZero() && !now.Add(skew).Before(g.Expiry)
}

// Path is the file that holds the tokens of server name at serverURL.
// The name is kept readable; the hash of both keeps two servers of the same
// name at different URLs (or names that sanitise alike) apart.
func (s *Store) Path(name, serverURL string) string {
	sum := sha256.Sum256([]byte(name + "\x00" + serverURL))
	return filepath.Join(s.dir, sanitizeName(name)+"-"+hex.EncodeToString(sum[:6])+fileExt)
}

func sanitizeName(name string) string {
	var b strings.Builder
	for _, r := range name {
		if b.Len() >= 40 {
			break
		}
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "server"
	}
	return b.String()
}

// ad binds a sealed file to its server: a file copied over another
// server's does not open.
func ad(name, serverURL string) []byte { return []byte("mcp oauth\x00" + name + "\x00" + serverURL) }

// load reads the grant of name at serverURL: ErrNoToken when there is none.
func (s *Store) load(name, serverURL string) (*grant, error) {
	path := s.Path(name, serverURL)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w for MCP server %q", ErrNoToken, name)
	}
	if err != nil {
		return nil, fmt.Errorf("oauth token file %s: %w", path, err)
	}
	plain, err := s.key.Open(Purpose, b, ad(name, serverURL))
	if err != nil {
		return nil, fmt.Errorf("oauth token file %s cannot be opened with this at-rest key (log in again): %w", path, err)
	}
	var g grant
	if err := json.Unmarshal(plain, &g); err != nil {
		return nil, fmt.Errorf("oauth token file %s: damaged content: %w", path, err)
	}
	if g.Server != name || g.URL != serverURL || g.AccessToken == "" {
		return nil, fmt.Errorf("oauth token file %s: holds no token for %q at %s", path, name, redactURL(serverURL))
	}
	return &g, nil
}

// save writes g sealed, atomically: sealed bytes go to a temporary file
// (mode 0600) that is synced and renamed over the old one, so a reader sees
// the old file or the new one, and the clear text never touches the disk.
func (s *Store) save(g *grant) error {
	plain, err := json.Marshal(g)
	if err != nil {
		return fmt.Errorf("oauth token store: %w", err)
	}
	sealed, err := s.key.Seal(Purpose, plain, ad(g.Server, g.URL))
	clear(plain)
	if err != nil {
		return fmt.Errorf("oauth token store: %w", err)
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("oauth token store: %w", err)
	}
	path := s.Path(g.Server, g.URL)
	if err := atomicfile.Write(path, sealed, 0o600); err != nil {
		return fmt.Errorf("oauth token store: write %s: %w", path, err)
	}
	return nil
}

// Delete forgets the tokens of name at serverURL (a logout); no file is
// not an error.
func (s *Store) Delete(name, serverURL string) error {
	err := os.Remove(s.Path(name, serverURL))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("oauth token store: %w", err)
	}
	return nil
}

// lock takes the refresh lock of one server, or gives up with ctx.
func (s *Store) lock(ctx context.Context, name, serverURL string) (unlock func(), err error) {
	path := s.Path(name, serverURL)
	s.mu.Lock()
	ch, ok := s.locks[path]
	if !ok {
		ch = make(chan struct{}, 1)
		s.locks[path] = ch
	}
	s.mu.Unlock()
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Status is what may be shown of a saved login: no token, no secret.
type Status struct {
	LoggedIn   bool      // a token is saved
	Expiry     time.Time // when the access token expires; zero if unknown
	CanRefresh bool      // a refresh token is saved
	Scopes     []string  // the scopes granted, as far as known
	Saved      time.Time // when the tokens were last saved
}

// Status reports the saved login of name at serverURL, for `moteur mcp
// list`. No saved token is LoggedIn false and no error; a file that does not
// open is an error naming it.
func (s *Store) Status(name, serverURL string) (Status, error) {
	g, err := s.load(name, serverURL)
	if errors.Is(err, ErrNoToken) {
		return Status{}, nil
	}
	if err != nil {
		return Status{}, err
	}
	return Status{LoggedIn: true, Expiry: g.Expiry, CanRefresh: g.RefreshToken != "", Scopes: g.Scopes, Saved: g.Saved}, nil
}

// markRefused remembers that the server refused g's refresh token, so that
// no request of this process asks again with it; a new login saves another.
func (s *Store) markRefused(g *grant) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refused[s.Path(g.Server, g.URL)] = g.RefreshToken
}

func (s *Store) wasRefused(g *grant) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	rt, ok := s.refused[s.Path(g.Server, g.URL)]
	return ok && rt == g.RefreshToken
}
