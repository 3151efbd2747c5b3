package bench

import "fmt"

// The turn every loop benchmark plays (engine.BenchmarkTurn's): Rounds
// rounds of two concurrent calls of two of Tools tools, then an answer.
const (
	Rounds = 10
	Tools  = 50
)

// Texts of the turn, the same for every loop.
const (
	userText   = "Compare les deux sources."
	roundText  = "Je vérifie deux sources."
	answerText = "Voici la réponse complète, fondée sur les résultats."
)

// call is one scripted tool call.
type call struct{ id, name, args string }

// roundCalls are round r's two calls.
func roundCalls(r int) [2]call {
	return [2]call{
		{fmt.Sprintf("a%d", r), "tool_07", `{"q":"alpha"}`},
		{fmt.Sprintf("b%d", r), "tool_42", `{"q":"beta"}`},
	}
}

// toolName is the i-th tool's name.
func toolName(i int) string { return fmt.Sprintf("tool_%02d", i) }
