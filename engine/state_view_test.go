package engine

import "github.com/moteur/moteur/llm"

// messages is the history as Restore describes it: the calls left
// unanswered get their synthetic answers after the last event.
func (st *state) messages() []llm.Message {
	if st.round == nil {
		return st.history
	}
	return append(st.history[:len(st.history):len(st.history)], st.roundMessages()...)
}
