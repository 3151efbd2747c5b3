package analyze

import (
	"database/sql"
	"fmt"
	"reflect"
	"testing"

	_ "modernc.org/sqlite"
)

// openFTS5 opens an in-memory SQLite database holding one FTS5 table t(x)
// with the given tokenizer, and an fts5vocab table v of its instances. One
// connection only: every connection to ":memory:" is a database of its own.
func openFTS5(t *testing.T, tokenizer string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		t.Fatalf("open sqlite: %v", err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	for _, q := range []string{
		fmt.Sprintf(`CREATE VIRTUAL TABLE t USING fts5(x, tokenize=%q)`, tokenizer),
		`CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return db
}

// fts5Tokens indexes each text as a document and returns, per text, the
// tokens FTS5 indexed, in order.
func fts5Tokens(t *testing.T, tokenizer string, texts []string) [][]string {
	t.Helper()
	db := openFTS5(t, tokenizer)
	for i, s := range texts {
		if _, err := db.Exec(`INSERT INTO t(rowid, x) VALUES (?, ?)`, i+1, s); err != nil {
			t.Fatalf("insert %q: %v", s, err)
		}
	}
	rows, err := db.Query(`SELECT doc, offset, term FROM v ORDER BY doc, offset`)
	if err != nil {
		t.Fatalf("read vocabulary: %v", err)
	}
	defer rows.Close()
	out := make([][]string, len(texts))
	for rows.Next() {
		var doc, offset int
		var term string
		if err := rows.Scan(&doc, &offset, &term); err != nil {
			t.Fatalf("read vocabulary: %v", err)
		}
		if offset != len(out[doc-1]) {
			t.Fatalf("doc %d: token offset %d after %d tokens", doc, offset, len(out[doc-1]))
		}
		out[doc-1] = append(out[doc-1], term)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("read vocabulary: %v", err)
	}
	return out
}

// sampleCorpus mixes what a knowledge base holds: French and English prose,
// identifiers, punctuation, and a little of other scripts.
var sampleCorpus = []string{
	"L'équipe sécurité réseau gère les politiques d'accès : VPN, pare-feu et proxy.",
	"Quelle est la procédure pour réinitialiser un mot de passe expiré ? Contactez le support (poste 4012).",
	"Error ERR_4012 means the upstream timed out; raise max_retries or set X-Request-ID to trace it.",
	"Version v1.2.3 — corrige l’erreur « délai dépassé » sur 10.0.0.1:8443/api/v2.",
	"Les congés payés (CP) se posent dans l'outil RH au moins 15 jours à l'avance.",
	"Don't share passwords; it's the company's #1 rule. E-mail: securite@moteur.example.",
	"Œuvre, cœur, Straße, façade, naïve, coût, ÉLÈVE, ﬁchier, ＡＰＩ, m², ½, Ⅻ.",
	"re\u0301seau de\u0301compose\u0301 (NFD) et ré-seau.",
	"東京都の天気は晴れ。ソウル 서울 Привет мир Ἀθῆναι ΣΟΦΙΑ עברית العربية हैलो वर्ल्ड",
	"Emoji 🙂👍🏽🤦‍♂️ and symbols ™ © ® € $ % § ¶ • · … – — ‐ ‑",
	"tabs\tand\nnew lines\r\nand\u00a0no-break\u2009spaces\u200bzero width",
	"snake_case kebab-case dotted.key.name __dunder__ trailing_ -leading ..dots.. a--b",
	"",
}

// TestRawMatchesFTS5 checks raw analysis against the tokens SQLite's
// unicode61 tokenizer (remove_diacritics 0) indexes for the same texts: the
// same tokens in the same order, hence the same vocabulary.
func TestRawMatchesFTS5(t *testing.T) {
	const tokenizer = "unicode61 remove_diacritics 0"
	got := fts5Tokens(t, tokenizer, sampleCorpus)
	vocab := map[string]bool{}
	for i, text := range sampleCorpus {
		want := Terms(text, Options{Raw: true})
		if !reflect.DeepEqual(want, got[i]) && len(want)+len(got[i]) > 0 {
			t.Errorf("text %d %q:\n raw  %q\n fts5 %q", i, text, want, got[i])
		}
		for _, term := range want {
			vocab[term] = true
		}
	}
	if fts5 := fts5Vocabulary(t, tokenizer, sampleCorpus); !reflect.DeepEqual(vocab, fts5) {
		t.Errorf("vocabulary differs:\n raw  %v\n fts5 %v", vocab, fts5)
	}
}

// TestTermsAreSingleFTS5Tokens checks that, stored under Tokenizer, every
// term of the default analysis is one FTS5 token, unchanged.
func TestTermsAreSingleFTS5Tokens(t *testing.T) {
	var joined []string
	for _, text := range sampleCorpus {
		joined = append(joined, Join(Terms(text, Options{})))
	}
	got := fts5Tokens(t, Tokenizer, joined)
	for i, text := range sampleCorpus {
		if want := Terms(text, Options{}); !reflect.DeepEqual(want, got[i]) && len(want)+len(got[i]) > 0 {
			t.Errorf("text %d %q:\n terms %q\n fts5  %q", i, text, want, got[i])
		}
	}
}

// fts5Vocabulary indexes texts and returns the terms of the fts5vocab
// 'row' table.
func fts5Vocabulary(t *testing.T, tokenizer string, texts []string) map[string]bool {
	t.Helper()
	db := openFTS5(t, tokenizer)
	if _, err := db.Exec(`CREATE VIRTUAL TABLE vr USING fts5vocab(t, 'row')`); err != nil {
		t.Fatalf("create vocabulary table: %v", err)
	}
	for _, s := range texts {
		if _, err := db.Exec(`INSERT INTO t(x) VALUES (?)`, s); err != nil {
			t.Fatalf("insert %q: %v", s, err)
		}
	}
	rows, err := db.Query(`SELECT term FROM vr`)
	if err != nil {
		t.Fatalf("read vocabulary: %v", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var term string
		if err := rows.Scan(&term); err != nil {
			t.Fatalf("read vocabulary: %v", err)
		}
		out[term] = true
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("read vocabulary: %v", err)
	}
	return out
}
