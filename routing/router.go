// Package routing orders the providers a session may use: the preferred
// one first, fallbacks after it for transient failures, and the local
// provider that classified content is routed to. It decides nothing about
// what may be sent (policy.Outbound does) and calls no tool.
package routing

import (
	"errors"

	"github.com/moteur/moteur/provider"
)

// Candidate is one provider a session may send to.
type Candidate struct {
	Provider provider.Provider
	// Endpoint is where the provider sends (its base URL); empty for a
	// provider that runs in the process.
	Endpoint string
	// Local: the provider runs on this machine or network and may receive
	// classified content.
	Local bool
}

// Config lists the candidates in order of preference.
type Config struct {
	Candidates []Candidate
}

// Router hands out candidates. It is immutable, so safe for concurrent use.
type Router struct {
	candidates []Candidate
	local      int // index of the first local candidate, -1 when none
}

// New checks cfg and returns a router.
func New(cfg Config) (*Router, error) {
	if len(cfg.Candidates) == 0 {
		return nil, errors.New("routing: no provider candidate")
	}
	r := &Router{candidates: append([]Candidate(nil), cfg.Candidates...), local: -1}
	for i, c := range r.candidates {
		if c.Provider == nil {
			return nil, errors.New("routing: a candidate has no provider")
		}
		if c.Local && r.local < 0 {
			r.local = i
		}
	}
	return r, nil
}

// Candidates returns the providers to try, in order: all of them, or for a
// sensitive session the local ones only.
func (r *Router) Candidates(sensitive bool) []Candidate {
	if !sensitive {
		return r.candidates
	}
	var out []Candidate
	for _, c := range r.candidates {
		if c.Local {
			out = append(out, c)
		}
	}
	return out
}

// Local returns the first local provider, nil when there is none.
func (r *Router) Local() provider.Provider {
	if r.local < 0 {
		return nil
	}
	return r.candidates[r.local].Provider
}

// Default is the preferred candidate.
func (r *Router) Default() Candidate { return r.candidates[0] }
