package rag

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/provider"
	"github.com/moteur/moteur/provider/extractive"
	"github.com/moteur/moteur/routing"
)

// generate writes the answer from the passages and the web results: with
// the first model that may receive them and answers, retried as the engine
// retries a turn's request, else extractively. A model that fails (down,
// refusing the key, unknown) gives way to the extractive answer, with a
// warning that says why: the passages found are still worth reading.
func (p *Pipeline) generate(ctx context.Context, question string, history []llm.Message, pc *passages, hint string, c call, rec *recorder) (Answer, error) {
	msgs := append(textOnly(history),
		llm.Message{Role: llm.RoleUser, Content: extractive.FormatPrompt(pc.allPrompt(), question)})
	system := i18n.QuickAnswerPrompt(p.cfg.Lang, !p.cfg.NoCitations)
	if len(pc.webPrompt) > 0 {
		system += "\n" + webRule(p.cfg.Lang, !p.cfg.NoCitations)
	}
	if p.cfg.Instructions != "" {
		system += "\n\n" + p.cfg.Instructions
	}
	req := llm.Request{Messages: append([]llm.Message{{Role: llm.RoleSystem, Content: system}}, msgs...),
		MaxTokens: p.cfg.MaxTokens, Temperature: p.cfg.Temperature, NoThinking: p.cfg.NoThinking}
	if len(pc.sources) == 0 && len(pc.web) == 0 {
		return p.nothingFound(hint, rec), nil
	}
	if p.cfg.Router != nil {
		a, err := p.withModel(ctx, req, c, rec)
		var pe *provider.Error
		switch {
		case err == nil || ctx.Err() != nil || rec.err != nil:
			return a, err
		case errors.As(err, &pe):
			rec.event(event.Warning, event.WarningPayload{Kind: "provider",
				Message: i18n.ModelFailedFallback(p.cfg.Lang, err.Error())}, false)
		case errors.Is(err, policy.ErrRefused):
			rec.event(event.Warning, event.WarningPayload{Kind: "outbound",
				Message: i18n.OutboundFallback(p.cfg.Lang, err.Error())}, false)
		default:
			return a, err
		}
		if rec.err != nil {
			return Answer{}, rec.err
		}
	}
	return p.stream(ctx, p.extractiveProvider(), req, rec, true)
}

// withModel tries the router's candidates in order: one refused by the
// outbound policy, or failing transiently once its retries are spent,
// gives way to the next.
func (p *Pipeline) withModel(ctx context.Context, req llm.Request, c call, rec *recorder) (Answer, error) {
	var errs []error
	cands := p.cfg.Router.Candidates(c.sensitive)
	if len(cands) == 0 {
		return Answer{}, &policy.Refusal{Rule: "sensitive session", Reason: "classified content entered it and no local model is configured"}
	}
	for _, cand := range cands {
		if err := p.check(cand, req.Messages); err != nil {
			errs = append(errs, err)
			continue
		}
		a, err := p.retrying(ctx, cand.Provider, req, p.retryDelays(c), rec)
		if err == nil {
			return a, nil
		}
		if !provider.IsTransient(err) || ctx.Err() != nil || rec.err != nil {
			return Answer{}, err
		}
		errs = append(errs, err)
	}
	return Answer{}, errors.Join(errs...)
}

// retrying runs one generation with pr, retrying transient failures after
// each of delays in turn, each retry recorded (ProviderRetry) as the
// engine records its own.
func (p *Pipeline) retrying(ctx context.Context, pr provider.Provider, req llm.Request, delays []time.Duration, rec *recorder) (Answer, error) {
	for attempt := 0; ; attempt++ {
		a, err := p.stream(ctx, pr, req, rec, false)
		if err == nil || ctx.Err() != nil || !provider.IsTransient(err) || attempt >= len(delays) {
			return a, err
		}
		rec.event(event.ProviderRetry, event.ProviderRetryPayload{Attempt: attempt + 1,
			DelayMS: delays[attempt].Milliseconds(), Error: err.Error()}, false)
		if rec.err != nil {
			return Answer{}, rec.err
		}
		if err := sleep(ctx, delays[attempt]); err != nil {
			return Answer{}, err
		}
	}
}

// retryDelays are the waits before the retries of a transient failure:
// the call's, else the configuration's, else the engine's default.
func (p *Pipeline) retryDelays(c call) []time.Duration {
	switch {
	case c.retryDelays != nil:
		return c.retryDelays
	case p.cfg.RetryDelays != nil:
		return p.cfg.RetryDelays
	}
	return DefaultRetryDelays
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *Pipeline) check(c routing.Candidate, msgs []llm.Message) error {
	if p.cfg.Outbound == nil {
		return nil
	}
	return p.cfg.Outbound.Check(policy.Destination{Provider: c.Provider.Name(), Endpoint: c.Endpoint, Local: c.Local}, msgs)
}

// stream runs one generation, relaying its text as AssistantDelta events.
func (p *Pipeline) stream(ctx context.Context, pr provider.Provider, req llm.Request, rec *recorder, extractive bool) (Answer, error) {
	resp, err := pr.Stream(ctx, req, func(d llm.Delta) {
		if d.Text != "" {
			rec.event(event.AssistantDelta, event.DeltaPayload{Text: d.Text, Round: 1}, true)
		}
	})
	if err != nil {
		// A provider's error names the provider already.
		if pe := (*provider.Error)(nil); !errors.As(err, &pe) {
			err = fmt.Errorf("%s: %w", pr.Name(), err)
		}
		return Answer{}, err
	}
	model := resp.Model
	if model == "" {
		model = pr.Model()
	}
	return Answer{Text: strings.TrimSpace(resp.Text), Provider: pr.Name(), Model: model, Extractive: extractive,
		Usage: usageOf(resp)}, nil
}

func usageOf(r llm.Response) llm.Usage {
	if r.Usage == nil {
		return llm.Usage{}
	}
	return *r.Usage
}

// textOnly keeps the user and assistant text of a conversation: the tool
// traffic of agent turns does not help a one-shot answer.
func textOnly(history []llm.Message) []llm.Message {
	var out []llm.Message
	for _, m := range history {
		if (m.Role == llm.RoleUser || m.Role == llm.RoleAssistant) && strings.TrimSpace(m.Content) != "" {
			out = append(out, llm.Message{Role: m.Role, Content: m.Content, Remote: m.Remote})
		}
	}
	return out
}

// nothingFound answers, without a model, that retrieval found nothing: a
// model given no source could only guess.
func (p *Pipeline) nothingFound(hint string, rec *recorder) Answer {
	text := i18n.T(p.cfg.Lang, i18n.NoPassage)
	if hint != "" {
		text += "\n\n" + hint
	}
	rec.event(event.AssistantDelta, event.DeltaPayload{Text: text, Round: 1}, true)
	return Answer{Text: text, Provider: "moteur", Model: "none", Extractive: true}
}
