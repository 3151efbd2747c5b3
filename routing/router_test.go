package routing

import (
	"testing"

	"github.com/moteur/moteur/provider/scripted"
)

func TestCandidatesAndLocal(t *testing.T) {
	cloud := scripted.New(scripted.Config{Name: "cloud"})
	backup := scripted.New(scripted.Config{Name: "backup"})
	local := scripted.New(scripted.Config{Name: "local"})
	r, err := New(Config{Candidates: []Candidate{{Provider: cloud}, {Provider: backup}, {Provider: local, Local: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(r.Candidates(false)); got != "cloud,backup,local" {
		t.Errorf("candidates = %s", got)
	}
	if got := names(r.Candidates(true)); got != "local" {
		t.Errorf("a sensitive session may only use local providers, got %s", got)
	}
	if r.Local() != local || r.Default().Provider != cloud {
		t.Errorf("Local = %v, Default = %v", r.Local(), r.Default().Provider)
	}
}

func TestWithoutLocalProvider(t *testing.T) {
	r, err := New(Config{Candidates: []Candidate{{Provider: scripted.New(scripted.Config{})}}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Local() != nil || len(r.Candidates(true)) != 0 {
		t.Error("no local provider: a sensitive session has nowhere to go")
	}
}

func TestNewRejectsEmptyConfigs(t *testing.T) {
	if _, err := New(Config{}); err == nil {
		t.Error("no candidates accepted")
	}
	if _, err := New(Config{Candidates: []Candidate{{}}}); err == nil {
		t.Error("a candidate without a provider accepted")
	}
}

func names(cs []Candidate) string {
	out := ""
	for i, c := range cs {
		if i > 0 {
			out += ","
		}
		out += c.Provider.Name()
	}
	return out
}
