// Package engine runs the agent loop of Moteur: it ties the provider, the
// tools and the sinks together and emits typed events that the interfaces
// render and the sinks persist. It never writes to a terminal or a socket.
//
// State: a session's state is a pure function of its persisted events. One
// reducer (state.apply) builds it: the live path applies each event once
// the sinks have persisted it, and Restore, the catch-up from Deps.Store
// and a snapshot's tail apply stored events the same way. With a store the
// engine keeps nothing between turns that the events do not rebuild:
// before each turn it applies what another process or Engine appended, so
// any process with the store can run a session's next turn.
//
// Sub-agents (Deps.Agents): the tool `agent` runs a child loop whose
// events carry the parent's call id (Event.ParentCallID); the session's
// reducer takes from them only the permission counter, the files written
// and the classification, and the child's history is the same reducer
// applied to its events alone. Several `agent` calls of a round run at
// once; their permission requests wait for the user one at a time.
//
// Hooks (Deps.Hooks) run at the points hookcalls.go lists, each recorded
// as HookStarted and HookCompleted; they tighten, never loosen.
//
// Concurrency: an Engine is safe for concurrent use. Turns of one session are
// serialised (a second Submit waits for the first), and with a store that
// leases sessions one process at a time writes a session; turns of different
// sessions run concurrently.
//
// Delivery: every event goes first to the sinks, in order (Deps.Sinks[0], the
// audit log, first), then to every subscriber, then to the session's
// followers. A sink failure stops the turn and the engine refuses every
// later turn with ErrAuditFailure: nothing runs that the audit log did not
// record. Subscriber delivery blocks when a subscriber's buffer is full, so
// subscribers must read continuously; followers (SubscribeSession) never
// block the engine: one that falls behind is told so and reads what it
// missed back from the store. When Submit returns, every event of its turn
// is already in the subscribers' channels.
package engine
