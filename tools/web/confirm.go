package web

import (
	"encoding/json"
)

// The restricted profile asks the user before each page is fetched
// (Config.ConfirmFetch): a page's URL is a send of its own, which the
// user sees and answers for every call; no answer is remembered.

// confirmReason is the sentence shown to the user and the model.
const confirmReason = "the restricted profile asks before each web page is fetched"

// MustConfirm implements tools.Confirmer.
func (t *fetchTool) MustConfirm(json.RawMessage) string {
	if t.s.cfg.ConfirmFetch {
		return confirmReason
	}
	return ""
}

// MustConfirm implements tools.Confirmer: a search with content fetches
// its first results.
func (t *searchTool) MustConfirm(raw json.RawMessage) string {
	if !t.s.cfg.ConfirmFetch {
		return ""
	}
	var a searchArgs
	if json.Unmarshal(raw, &a) != nil || a.Content {
		return confirmReason + " (content: true fetches the first results)"
	}
	return ""
}
