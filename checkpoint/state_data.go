package checkpoint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

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
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loadPoints()
	return s.dataLocked()
}

// dataLocked is Data; the caller holds s.mu.
func (s *State) dataLocked() StateData {
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
	if err := checkPoints(d.Points, d.Last); err != nil {
		return err
	}
	prev := uint64(0)
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

// Split returns the state's content without its points, and its points as
// a JSON array: what a snapshot keeps apart, so that FromSplit need not
// decode them. Points still in JSON form (a state from FromSplit whose
// points were never read) are not decoded: the array is theirs with the
// points applied since appended.
func (s *State) Split() (StateData, []byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	d := s.dataLocked()
	d.Points = nil
	tail, err := json.Marshal(append([]Point{}, s.points...)) // [] rather than null
	if err != nil {
		return StateData{}, nil, err
	}
	if s.older == nil || len(s.points) == 0 {
		if s.older != nil {
			return d, bytes.Clone(s.older), nil
		}
		return d, tail, nil
	}
	// "[older…]" + "," + "…tail]": both are non-empty arrays.
	out := make([]byte, 0, len(s.older)+len(tail))
	out = append(out, s.older[:len(s.older)-1]...)
	out = append(out, ',')
	return d, append(out, tail[1:]...), nil
}

// FromSplit is the state d describes with the points of the JSON array
// points (Split), decoded only when first read: a state that only applies
// events and is split again never decodes them. Their order is checked
// then; points that do not decode or are out of order make Plan fail,
// saying so, and Points give only those applied since.
func FromSplit(d StateData, points []byte) (*State, error) {
	if len(d.Points) > 0 {
		return nil, errors.New("rewind state: points given twice")
	}
	s, err := FromData(d)
	if err != nil {
		return nil, err
	}
	points = bytes.TrimSpace(points)
	if len(points) < 2 || points[0] != '[' || points[len(points)-1] != ']' {
		return nil, errors.New("rewind state: the points are not a JSON array")
	}
	if !bytes.Equal(points, []byte("[]")) {
		s.older = points
	}
	return s, nil
}

// loadPoints decodes the points still in JSON form, before those applied
// since. The caller holds s.mu for writing.
func (s *State) loadPoints() {
	if s.older == nil {
		return
	}
	var older []Point
	err := json.Unmarshal(s.older, &older)
	s.older = nil
	if err == nil {
		err = checkPoints(older, s.last)
	}
	if err == nil && len(older) > 0 && len(s.points) > 0 && s.points[0].Seq <= older[len(older)-1].Seq {
		err = fmt.Errorf("point at seq %d after %d", s.points[0].Seq, older[len(older)-1].Seq)
	}
	if err != nil {
		s.olderErr = fmt.Errorf("rewind state: the points of the session's snapshot: %w", err)
		return
	}
	s.points = append(older, s.points...)
}

// checkPoints refuses points out of order or after last.
func checkPoints(points []Point, last uint64) error {
	prev := uint64(0)
	for _, p := range points {
		if p.Seq <= prev || p.Seq > last {
			return fmt.Errorf("point at seq %d out of order (last %d)", p.Seq, last)
		}
		prev = p.Seq
	}
	return nil
}
