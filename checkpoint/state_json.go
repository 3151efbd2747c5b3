package checkpoint

import (
	"encoding/json"
	"fmt"
)

// stateJSON is the encoding of a State: what a snapshot of a session keeps
// of its rewind state, so that a long session resumes without replaying its
// events.
type stateJSON struct {
	Session string                 `json:"session,omitempty"`
	Last    uint64                 `json:"last,omitempty"`
	Points  []Point                `json:"points,omitempty"`
	Files   map[string][]writeJSON `json:"files,omitempty"`
	Calls   []Call                 `json:"calls,omitempty"`
}

type writeJSON struct {
	Call   Call   `json:"call"`
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
}

// MarshalJSON encodes the state; UnmarshalJSON of the result gives a state
// equal to it, that goes on the same way with the events that follow.
func (s *State) MarshalJSON() ([]byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	j := stateJSON{Session: s.session, Last: s.last, Points: s.points, Calls: s.calls}
	if len(s.files) > 0 {
		j.Files = make(map[string][]writeJSON, len(s.files))
		for p, ws := range s.files {
			out := make([]writeJSON, len(ws))
			for i, w := range ws {
				out[i] = writeJSON{Call: w.call, Before: w.before, After: w.after}
			}
			j.Files[p] = out
		}
	}
	return json.Marshal(j)
}

// UnmarshalJSON replaces the state with the one data encodes. Points,
// writes and calls must be in increasing seq order, none after Last.
func (s *State) UnmarshalJSON(data []byte) error {
	var j stateJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return fmt.Errorf("rewind state: %w", err)
	}
	if err := j.check(); err != nil {
		return fmt.Errorf("rewind state: %w", err)
	}
	files := make(map[string][]write, len(j.Files))
	for p, ws := range j.Files {
		out := make([]write, len(ws))
		for i, w := range ws {
			out[i] = write{call: w.Call, before: w.Before, after: w.After}
		}
		files[p] = out
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.session, s.last, s.points, s.files, s.calls = j.Session, j.Last, j.Points, files, j.Calls
	return nil
}

// check refuses an encoding no sequence of events could have produced:
// the plans rely on the seq order.
func (j *stateJSON) check() error {
	prev := uint64(0)
	for _, p := range j.Points {
		if p.Seq <= prev || p.Seq > j.Last {
			return fmt.Errorf("point at seq %d out of order (last %d)", p.Seq, j.Last)
		}
		prev = p.Seq
	}
	for path, ws := range j.Files {
		prev = 0
		for _, w := range ws {
			if w.Call.Seq < prev || w.Call.Seq > j.Last {
				return fmt.Errorf("write of %s at seq %d out of order (last %d)", path, w.Call.Seq, j.Last)
			}
			prev = w.Call.Seq
		}
	}
	prev = 0
	for _, c := range j.Calls {
		if c.Seq < prev || c.Seq > j.Last {
			return fmt.Errorf("call at seq %d out of order (last %d)", c.Seq, j.Last)
		}
		prev = c.Seq
	}
	return nil
}
