package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
)

// EinoLoop plays the same turn on eino's ReAct agent (flow/agent/react):
// the same Tools tools answering the same way, a scripted ChatModel
// returning the same calls, the agent built per turn.
type EinoLoop struct {
	tools []tool.BaseTool
}

// NewEinoLoop makes the tools.
func NewEinoLoop() *EinoLoop {
	l := &EinoLoop{}
	for i := range Tools {
		l.tools = append(l.tools, &einoTool{info: &schema.ToolInfo{Name: toolName(i), Desc: "test tool " + toolName(i),
			ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{"q": {Type: schema.String}})}})
	}
	return l
}

// Turn plays one turn and returns the answer and the number of tool
// results the model was given back.
func (l *EinoLoop) Turn(ctx context.Context) (answer string, results int, err error) {
	m := &scriptedModel{}
	a, err := react.NewAgent(ctx, &react.AgentConfig{ToolCallingModel: m,
		ToolsConfig: compose.ToolsNodeConfig{Tools: l.tools}, MaxStep: 50})
	if err != nil {
		return "", 0, fmt.Errorf("eino loop: %w", err)
	}
	msg, err := a.Generate(ctx, []*schema.Message{schema.UserMessage(userText)})
	if err != nil {
		return "", 0, fmt.Errorf("eino loop: %w", err)
	}
	return msg.Content, m.results, nil
}

// scriptedModel answers round r with round r's calls, then the answer;
// it counts the tool results it is sent back.
type scriptedModel struct {
	mu      sync.Mutex
	round   int
	results int
}

func (m *scriptedModel) Generate(_ context.Context, input []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.round
	m.round++
	if r > 0 {
		for i := len(input) - 1; i >= 0 && input[i].Role == schema.Tool; i-- {
			m.results++
		}
	}
	if r >= Rounds {
		return schema.AssistantMessage(answerText, nil), nil
	}
	var calls []schema.ToolCall
	for _, c := range roundCalls(r) {
		calls = append(calls, schema.ToolCall{ID: c.id, Type: "function",
			Function: schema.FunctionCall{Name: c.name, Arguments: c.args}})
	}
	return schema.AssistantMessage(roundText, calls), nil
}

func (m *scriptedModel) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return nil, errors.New("scripted model: streaming is not part of the script")
}

func (m *scriptedModel) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	return m, nil
}

// einoTool answers "ok:<name>" at once.
type einoTool struct{ info *schema.ToolInfo }

func (t *einoTool) Info(context.Context) (*schema.ToolInfo, error) { return t.info, nil }

func (t *einoTool) InvokableRun(context.Context, string, ...tool.Option) (string, error) {
	return "ok:" + t.info.Name, nil
}
