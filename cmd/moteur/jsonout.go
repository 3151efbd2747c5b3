package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/moteur/moteur/event"
)

// jsonView prints every event, ephemeral deltas included, as one JSON
// object per line: the event.Event encoding, which is the --json contract
// (seq, type, session_id, time, payload, parent_call_id, ephemeral).
type jsonView struct {
	enc *json.Encoder
	err error
}

func newJSONView(w io.Writer) *jsonView {
	enc := json.NewEncoder(w)
	// Answers and file contents are full of <, > and &: keep them readable.
	enc.SetEscapeHTML(false)
	return &jsonView{enc: enc}
}

func (j *jsonView) event(ev event.Event) error {
	if j.err == nil {
		if err := j.enc.Encode(ev); err != nil {
			j.err = fmt.Errorf("write event %d (%s): %w", ev.Seq, ev.Type, err)
		}
	}
	return j.err
}

func (j *jsonView) finish() error { return j.err }
