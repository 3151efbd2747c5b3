// Package tui owns moteur chat's full-screen terminal interface, a Bubble
// Tea program: the editor (line editing, history, multi-line input and
// pastes), the transcript (the answer streamed then shown as Markdown, the
// reasoning folded, tool calls as a live timeline), the approval dialog, the
// status line and the slash commands.
//
// The model is pure: it changes only in Update, from key presses, window
// sizes, ticks and the engine's events, and it reaches the session only
// through the Backend it is given, by returning commands. The engine's
// events arrive through Backend.Next, which a command waits on; time comes
// from Config.Now, so that tests render the same frame every time.
package tui
