package checkpoint

import "fmt"

// StateData is a State's content as plain values: what a snapshot of a
// session keeps of its rewind state, so that a long session resumes without
// replaying its events. It encodes as JSON with no method of its own, so a
// snapshot decodes in one pass.
type StateData struct {
	Session string                 `json:"session,omitempty"`
	Last    uint64                 `json:"last,omitempty"`
	Points  []Point                `json:"points,omitempty"`
	Files   map[string][]WriteData `json:"files,omitempty"`
	Calls   []Call                 `json:"calls,omitempty"`
}

// WriteData is one change of one file (see write).
type WriteData struct {
	Call   Call   `json:"call"`
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
}

// Data returns the state's content; FromData of it gives a state equal to
// this one, that goes on the same way with the events that follow.
func (s *State) Data() StateData {
	s.mu.RLock()
	defer s.mu.RUnlock()
	d := StateData{Session: s.session, Last: s.last, Points: s.points, Calls: s.calls}
	if len(s.files) > 0 {
		d.Files = make(map[string][]WriteData, len(s.files))
		for p, ws := range s.files {
			out := make([]WriteData, len(ws))
			for i, w := range ws {
				out[i] = WriteData{Call: w.call, Before: w.before, After: w.after}
			}
			d.Files[p] = out
		}
	}
	return d
}

// FromData is the state d describes. Points, writes and calls must be in
// increasing seq order, none after Last: the plans rely on that order.
func FromData(d StateData) (*State, error) {
	if err := d.check(); err != nil {
		return nil, fmt.Errorf("rewind state: %w", err)
	}
	files := make(map[string][]write, len(d.Files))
	for p, ws := range d.Files {
		out := make([]write, len(ws))
		for i, w := range ws {
			out[i] = write{call: w.Call, before: w.Before, after: w.After}
		}
		files[p] = out
	}
	return &State{session: d.Session, last: d.Last, points: d.Points, files: files, calls: d.Calls}, nil
}

// check refuses content no sequence of events could have produced.
func (d *StateData) check() error {
	prev := uint64(0)
	for _, p := range d.Points {
		if p.Seq <= prev || p.Seq > d.Last {
			return fmt.Errorf("point at seq %d out of order (last %d)", p.Seq, d.Last)
		}
		prev = p.Seq
	}
	for path, ws := range d.Files {
		prev = 0
		for _, w := range ws {
			if w.Call.Seq < prev || w.Call.Seq > d.Last {
				return fmt.Errorf("write of %s at seq %d out of order (last %d)", path, w.Call.Seq, d.Last)
			}
			prev = w.Call.Seq
		}
	}
	prev = 0
	for _, c := range d.Calls {
		if c.Seq < prev || c.Seq > d.Last {
			return fmt.Errorf("call at seq %d out of order (last %d)", c.Seq, d.Last)
		}
		prev = c.Seq
	}
	return nil
}
