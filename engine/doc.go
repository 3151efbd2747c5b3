// Package engine runs the agent loop of Moteur: it ties the provider, the
// tools and the sinks together and emits typed events that the interfaces
// render and the sinks persist. It never writes to a terminal or a socket.
//
// Concurrency: an Engine is safe for concurrent use. Turns of one session are
// serialised (a second Submit waits for the first); turns of different
// sessions run concurrently.
//
// Delivery: every event goes first to the sinks, in order (Deps.Sinks[0], the
// audit log, first), then to every subscriber. A sink failure stops the turn
// and the engine refuses every later turn with ErrAuditFailure: nothing runs
// that the audit log did not record. Subscriber delivery blocks when a
// subscriber's buffer is full, so subscribers must read continuously. When
// Submit returns, every event of its turn is already in the channels.
package engine
