package retrieval

import (
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	if err := Default().Validate(); err != nil {
		t.Fatal(err)
	}
	bad := Settings{VectorThreshold: 1.5, TopK: -1, Limit: 50, RerankFallback: 0.5}
	err := bad.Validate()
	if err == nil {
		t.Fatal("invalid settings accepted")
	}
	for _, want := range []string{"vector_threshold 1.5", "top_k -1", "limit 50", "rerank_fallback 0.5"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
}

func TestOverrideAndDefaults(t *testing.T) {
	user := Settings{KeywordThreshold: 0.4, TopK: 50}
	project := Settings{TopK: 20, MMRLambda: 0.5}
	got := user.Override(project).WithDefaults()
	want := Default()
	want.KeywordThreshold, want.TopK, want.MMRLambda = 0.4, 20, 0.5
	if got != want {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	if (Settings{}).WithDefaults() != Default() {
		t.Fatal("zero settings are not the defaults")
	}
}
