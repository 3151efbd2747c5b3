package server

import (
	"context"
	"errors"
	"net/http"

	"github.com/moteur/moteur/app"
	"github.com/moteur/moteur/checkpoint"
	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/event"
)

// CodeNotAPoint: the seq of a rewind is not one of the session's points.
const CodeNotAPoint = "not_a_point"

// openRewind opens session id to be rewound, once no turn of it runs here
// (409 busy) nor in another process (409 in_use).
func (s *Server) openRewind(ctx context.Context, r *http.Request, id string) (*app.Rewind, error) {
	if _, err := s.storedSession(ctx, keyOf(r), id); err != nil {
		return nil, err
	}
	if s.running(id) {
		return nil, apiErrorf(http.StatusConflict, CodeBusy, "session %s has a turn running: stop it or wait for its end", id)
	}
	rw, err := app.OpenRewind(ctx, s.options(id))
	if err != nil {
		return nil, openError(err)
	}
	return rw, nil
}

// listPoints serves GET /api/v1/sessions/{id}/points: the points a
// session can be rewound to, newest first (as Engine.RewindPoints gives
// them, and moteur sessions points prints them).
func (s *Server) listPoints(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	rw, err := s.openRewind(r.Context(), r, id)
	if err != nil {
		WriteError(w, err)
		return
	}
	points := rw.Engine.RewindPoints(id)
	if err := rw.Close(); err != nil {
		WriteError(w, err)
		return
	}
	if points == nil {
		points = []checkpoint.Point{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"points": points})
}

// rewindRequest is the body of POST /api/v1/sessions/{id}/rewind.
type rewindRequest struct {
	ToSeq uint64 `json:"to_seq"`
	// Mode is code, conversation or both ("": both).
	Mode string `json:"mode"`
	// Overwrite are the conflicting files to put back anyway (paths as
	// the plan gives them).
	Overwrite []string `json:"overwrite"`
	// DryRun returns the plan and changes nothing.
	DryRun bool `json:"dry_run"`
}

// rewindResponse is the plan of a rewind and, unless it was a dry run,
// what was done.
type rewindResponse struct {
	Plan   checkpoint.Plan     `json:"plan"`
	Prompt string              `json:"prompt,omitempty"`
	Files  []event.RewoundFile `json:"files,omitempty"`
	Note   string              `json:"note,omitempty"`
	DryRun bool                `json:"dry_run,omitempty"`
}

// rewind serves POST /api/v1/sessions/{id}/rewind: the files and/or the
// conversation put back to a point, recorded as a Rewound event like the
// CLI's `moteur sessions rewind`.
func (s *Server) rewind(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var body rewindRequest
	if err := s.decode(w, r, &body); err != nil {
		WriteError(w, err)
		return
	}
	mode := engine.RewindMode(body.Mode)
	switch mode {
	case "":
		mode = engine.RewindBoth
	case engine.RewindCode, engine.RewindConversation, engine.RewindBoth:
	default:
		WriteError(w, apiErrorf(http.StatusBadRequest, CodeInvalidField, "mode %q: want code, conversation or both", clip(body.Mode)))
		return
	}
	if body.ToSeq == 0 {
		WriteError(w, apiErrorf(http.StatusBadRequest, CodeInvalidField, "to_seq is required: a seq of GET /api/v1/sessions/%s/points", id))
		return
	}
	rw, err := s.openRewind(r.Context(), r, id)
	if err != nil {
		WriteError(w, err)
		return
	}
	resp, err := rewindSession(r.Context(), rw, id, body, mode)
	err = errors.Join(err, rw.Close())
	if err != nil {
		WriteError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

func rewindSession(ctx context.Context, rw *app.Rewind, id string, body rewindRequest, mode engine.RewindMode) (rewindResponse, error) {
	plan, err := rw.Engine.RewindPlan(id, body.ToSeq)
	if err != nil {
		return rewindResponse{}, rewindError(id, body.ToSeq, err)
	}
	if mode == engine.RewindConversation {
		plan = checkpoint.Plan{ToSeq: body.ToSeq}
	}
	if body.DryRun {
		return rewindResponse{Plan: plan, DryRun: true}, nil
	}
	res, err := rw.Engine.Rewind(ctx, id, body.ToSeq, mode, plan, body.Overwrite)
	if err != nil {
		return rewindResponse{}, rewindError(id, body.ToSeq, err)
	}
	return rewindResponse{Plan: plan, Prompt: res.Prompt, Files: res.Files, Note: res.Note}, nil
}

func rewindError(id string, seq uint64, err error) error {
	switch {
	case errors.Is(err, checkpoint.ErrNotAPoint):
		return errorf(http.StatusBadRequest, CodeNotAPoint, err, "seq %d is not a rewind point of session %s (GET /api/v1/sessions/%s/points lists them)", seq, id, id)
	case errors.Is(err, engine.ErrConversationUnavailable):
		return errorf(http.StatusConflict, "compacted", err,
			"the conversation of session %s cannot be rewound to seq %d: it was compacted since; mode code puts the files back alone", id, seq)
	}
	return err
}
