package web

import (
	"encoding/json"
	"testing"
)

func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"https://example.org/a?b=c#d", "w1", "w0", "http://[::1]:80/", "ftp://x", "//x", "http://u:p@h/",
		"HTTP://EXAMPLE.ORG", "http://%zz", "javascript:alert(1)", " https://x.test ", "w99999999"} {
		f.Add(s)
	}
	known := map[string]string{"w1": "https://example.org/known"}
	f.Fuzz(func(t *testing.T, given string) {
		u, err := parseTarget(given, func(a string) (string, bool) { v, ok := known[a]; return v, ok })
		if err != nil {
			if _, ok := err.(*fetchError); !ok {
				t.Fatalf("%q: error %T, want *fetchError", given, err)
			}
			return
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			t.Fatalf("%q: scheme %q accepted", given, u.Scheme)
		}
		if u.Hostname() == "" || u.User != nil || u.Fragment != "" {
			t.Fatalf("%q: accepted as %#v", given, u)
		}
	})
}

func FuzzParseFetchArgs(f *testing.F) {
	for _, s := range []string{`{"items":[{"url":"w1"}]}`, `{"items":[]}`, `{"items":[{"url":"x","offset":-1}]}`,
		`{"items":[{"url":"x","limit":999999}]}`, `{}`, `[]`, `{"items":null}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		items, err := parseFetchArgs(json.RawMessage(raw))
		if err != nil {
			return
		}
		if len(items) == 0 || len(items) > MaxFetchItems {
			t.Fatalf("%s: %d items accepted", raw, len(items))
		}
		for _, it := range items {
			if it.Offset < 0 || it.Limit < 1 || it.Limit > FetchBudget {
				t.Fatalf("%s: item %+v accepted", raw, it)
			}
		}
	})
}
