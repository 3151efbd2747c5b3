package main

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider/openai/openaitest"
)

const congesQuestion = "Combien de jours de congés payés par an ?"

// congesSources is the end of an answer citing conges.md as c1.
var congesSources = regexp.MustCompile(`\n\nSources ?:\n  \[c1\] Congés payés — conges\.md › Congés payés\n$`)

// sessionHint matches the line ask writes on stderr after a plain answer.
// (French: the default language, as the rest of the run.)
var sessionHint = regexp.MustCompile(`^moteur: session (s-\S+) \(pour continuer : moteur ask --session (s-\S+) QUESTION\)\n$`)

// canonical is an event's JSON line as the store encodes it: the --json
// view leaves <, > and & unescaped, the store does not.
func canonical(t *testing.T, line string) string {
	t.Helper()
	ev, err := event.Decode([]byte(strings.TrimSuffix(line, "\n")))
	if err != nil {
		t.Fatalf("%v\n%s", err, line)
	}
	return jsonLines(t, []event.Event{ev})
}

// withModel configures the scripted server as the one model.
func withModel(h *harness, srv *openaitest.Server) {
	h.env["MOTEUR_BASE_URL"] = srv.BaseURL()
	h.env["MOTEUR_MODEL"] = "m"
}

func TestAskWithoutModelQuotesThePassages(t *testing.T) {
	h := newKBHarness(t)
	h.env["MOTEUR_LANG"] = "fr" // the test reads the French texts
	withBase(t, h, "docs")

	res := h.run(t, "ask", congesQuestion)
	if res.code != 0 {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	first, _, _ := strings.Cut(res.stdout, "\n")
	if !strings.Contains(first, "sans modèle") {
		t.Errorf("first line %q does not say, in French, that no model was used", first)
	}
	if !regexp.MustCompile(`(?m)^> .*30 jours par an\.? \[c1\]`).MatchString(res.stdout) {
		t.Errorf("the answer does not quote the passage with its citation [c1]:\n%s", res.stdout)
	}
	if !congesSources.MatchString(res.stdout) {
		t.Errorf("stdout does not end with the sources naming Congés payés:\n%s", res.stdout)
	}
	if strings.Contains(res.stdout, "Télétravail") || strings.Contains(res.stdout, "Notes de frais") {
		t.Errorf("unrelated documents quoted:\n%s", res.stdout)
	}
	if m := storedID.FindString(res.stdout); m != "" {
		t.Errorf("stdout shows the stored id %s:\n%s", m, res.stdout)
	}
	if m := sessionHint.FindStringSubmatch(res.stderr); m == nil || m[1] != m[2] {
		t.Errorf("stderr %q, want the session and how to continue it", res.stderr)
	}

	res = h.run(t, "ask", "--lang", "en", congesQuestion)
	first, _, _ = strings.Cut(res.stdout, "\n")
	if res.code != 0 || !strings.Contains(first, "without a language model") {
		t.Errorf("--lang en: exit %d, first line %q; want the English notice", res.code, first)
	}
	if !congesSources.MatchString(res.stdout) {
		t.Errorf("--lang en: no sources:\n%s", res.stdout)
	}
	h.env["MOTEUR_LANG"] = "en"
	res = h.run(t, "ask", congesQuestion)
	if first, _, _ = strings.Cut(res.stdout, "\n"); !strings.Contains(first, "without a language model") {
		t.Errorf("MOTEUR_LANG=en: first line %q", first)
	}

	// Nothing relevant: said so, exit 0.
	res = h.run(t, "ask", "--lang", "en", "zeppelin")
	if res.code != 0 || !strings.HasPrefix(res.stdout, "No relevant passage") || strings.Contains(res.stdout, "Sources:") {
		t.Errorf("nothing found: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
}

func TestAskJSONRecordsTheSession(t *testing.T) {
	h := newKBHarness(t)
	withBase(t, h, "docs")
	chunks := kbSearch(t, h, "docs", congesQuestion)
	if len(chunks.Hits) == 0 {
		t.Fatal("kb search finds nothing")
	}

	res := h.run(t, "ask", "--json", congesQuestion)
	if res.code != 0 {
		t.Fatalf("exit %d, stderr %q", res.code, res.stderr)
	}
	if res.stderr != "" {
		t.Errorf("stderr %q, want nothing with --json", res.stderr)
	}
	var persisted []string
	var got []event.Type
	var seqs []uint64
	var am *event.AssistantMessagePayload
	var kr *event.KnowledgeRetrievedPayload
	id := ""
	for i, line := range strings.Split(strings.TrimSuffix(res.stdout, "\n"), "\n") {
		var raw map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &raw); err != nil {
			t.Fatalf("line %d is not a JSON object: %v\n%s", i+1, err, line)
		}
		ev, err := event.Decode([]byte(line))
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if id == "" {
			id = ev.SessionID
		}
		if ev.SessionID != id || !regexp.MustCompile(`^s-\d{8}T\d{6}-[0-9a-f]{16}$`).MatchString(id) {
			t.Errorf("line %d: session_id %q (first %q)", i+1, ev.SessionID, id)
		}
		if ev.Ephemeral {
			continue
		}
		persisted = append(persisted, canonical(t, line))
		got = append(got, ev.Type)
		seqs = append(seqs, ev.Seq)
		switch p := ev.Payload.(type) {
		case event.AssistantMessagePayload:
			am = &p
		case event.KnowledgeRetrievedPayload:
			kr = &p
		}
	}
	want := []event.Type{event.SessionStarted, event.UserMessage, event.KnowledgeRetrieved, event.AssistantMessage, event.TurnCompleted}
	if !slices.Equal(got, want) {
		t.Errorf("persisted events %v, want %v", got, want)
	}
	for i, s := range seqs {
		if s != uint64(i+1) {
			t.Errorf("persisted seqs %v, want 1..%d without gaps", seqs, len(seqs))
			break
		}
	}
	if kr == nil || len(kr.References) == 0 || kr.References[0].Alias != "c1" || kr.References[0].ID != chunks.Hits[0].Chunk {
		t.Errorf("KnowledgeRetrieved %+v, want c1 → %s", kr, chunks.Hits[0].Chunk)
	}
	if am == nil {
		t.Fatal("no AssistantMessage")
	}
	if len(am.Citations) == 0 {
		t.Fatalf("AssistantMessage without citations: %+v", am)
	}
	c := am.Citations[0]
	if c.Alias != "c1" || !chunkID.MatchString(c.ID) || c.ID != chunks.Hits[0].Chunk || c.Title != "Congés payés" {
		t.Errorf("citation %+v, want c1 → the stored chunk %s of Congés payés", c, chunks.Hits[0].Chunk)
	}
	if strings.Contains(am.Text, c.ID) || storedID.MatchString(am.Text) {
		t.Errorf("the answer text shows a stored id:\n%s", am.Text)
	}
	if !strings.Contains(am.Text, "[c1]") {
		t.Errorf("the answer text does not cite [c1]:\n%s", am.Text)
	}

	// Stored as printed: the session, its transcript and a verifiable
	// audit log.
	evs := h.load(t, id)
	checkSeqs(t, evs)
	if jsonLines(t, evs) != strings.Join(persisted, "") {
		t.Errorf("stored events:\n%s\nwant the persisted lines of stdout:\n%s", jsonLines(t, evs), strings.Join(persisted, ""))
	}
	show := h.run(t, "sessions", "show", id, "--json")
	var shown []string
	for _, line := range strings.SplitAfter(show.stdout, "\n") {
		if line != "" {
			shown = append(shown, canonical(t, line))
		}
	}
	if show.code != 0 || !slices.Equal(shown, persisted) {
		t.Errorf("sessions show --json: exit %d, stdout:\n%s\nwant the persisted lines of stdout", show.code, show.stdout)
	}
	list := h.run(t, "sessions", "list", "--all", "--json")
	var sessions []map[string]any
	decodeOnly(t, list.stdout, &sessions)
	if len(sessions) != 1 || sessions[0]["id"] != id || sessions[0]["title"] != congesQuestion || sessions[0]["events"] != 5.0 {
		t.Errorf("sessions list --all --json: %v, want %s with 5 events", sessions, id)
	}
	audit := h.run(t, "audit", "verify")
	if audit.code != 0 || audit.stdout != "ok 5 records  "+h.auditFile(id)+"\n" {
		t.Errorf("audit verify: exit %d, stdout %q, stderr %q", audit.code, audit.stdout, audit.stderr)
	}
}

func TestAskWithModelSendsAliasesOnly(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Stream(
		openaitest.Chunk(`{"role":"assistant"}`, ""), openaitest.Text("Trente jours "), openaitest.Text("par an [c1]."),
		openaitest.Chunk(`{}`, "stop"), openaitest.Usage(120, 8), openaitest.Done))
	h := newKBHarness(t)
	h.env["MOTEUR_LANG"] = "fr" // the test reads the French texts
	withBase(t, h, "docs")
	withModel(h, srv)

	res := h.run(t, "ask", congesQuestion)
	if res.code != 0 {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("server saw %d requests, want one generation", len(reqs))
	}
	r := reqs[0]
	if r.Model != "m" || len(r.Tools) != 0 {
		t.Errorf("model %q, tools %v; want m and no tools", r.Model, r.Tools)
	}
	if r.Messages[0].Role != llm.RoleSystem || r.Messages[0].Content != i18n.QuickAnswerPrompt(i18n.FR, true) {
		t.Errorf("system message %+v, want the quick-answer prompt", r.Messages[0])
	}
	last := r.Messages[len(r.Messages)-1]
	if last.Role != llm.RoleUser || !strings.Contains(last.Content, `<source id="c1"`) ||
		!strings.Contains(last.Content, "30 jours par an") || !strings.Contains(last.Content, congesQuestion) {
		t.Errorf("last message sent:\n%s\nwant the passage as source c1 and the question", last.Content)
	}
	if m := storedID.FindString(string(r.Body)); m != "" {
		t.Errorf("stored id %s sent to the model:\n%s", m, r.Body)
	}
	if !strings.HasPrefix(res.stdout, "Trente jours par an [c1].\n") || !congesSources.MatchString(res.stdout) {
		t.Errorf("stdout:\n%s\nwant the model's answer, then the sources", res.stdout)
	}
	if strings.Contains(res.stdout, "sans modèle") {
		t.Errorf("the answer says no model was used:\n%s", res.stdout)
	}
	if !sessionHint.MatchString(res.stderr) {
		t.Errorf("stderr %q", res.stderr)
	}
}

func TestAskSessionRewritesTheFollowUp(t *testing.T) {
	const (
		answer1 = "Trente jours par an [c1]."
		follow  = "Et le télétravail, combien de jours ?"
		rewrite = "Combien de jours de télétravail par semaine ?"
		answer2 = "Deux jours par semaine [c1]."
		session = "s-ask"
	)
	srv := openaitest.NewServer(t, openaitest.Answer(answer1), openaitest.Answer(rewrite), openaitest.Answer(answer2))
	h := newKBHarness(t)
	h.env["MOTEUR_LANG"] = "fr" // the test reads the French texts
	withBase(t, h, "docs")
	withModel(h, srv)

	res := h.run(t, "ask", "--new-session", session, congesQuestion)
	if res.code != 0 {
		t.Fatalf("first ask: exit %d, stderr %q", res.code, res.stderr)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("first ask: %d requests, want 1 (nothing to rewrite yet)", n)
	}
	res = h.run(t, "ask", "--session", session, follow)
	if res.code != 0 {
		t.Fatalf("second ask: exit %d, stderr %q", res.code, res.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("server saw %d requests in all, want 3: the first generation, then a rewrite and a generation", len(reqs))
	}

	rw := reqs[1]
	if rw.Messages[0].Role != llm.RoleSystem || rw.Messages[0].Content != i18n.RewritePrompt(i18n.FR) {
		t.Errorf("second ask's first request is not the rewrite: system %+v", rw.Messages[0])
	}
	var convo []string
	for _, m := range rw.Messages[1:] {
		convo = append(convo, string(m.Role)+": "+m.Content)
	}
	if wantConvo := []string{"user: " + congesQuestion, "assistant: " + answer1, "user: " + follow}; !slices.Equal(convo, wantConvo) {
		t.Errorf("rewrite request messages %q, want the conversation then the new question %q", convo, wantConvo)
	}

	gen := reqs[2]
	last := lastUser(gen.Messages)
	if !regexp.MustCompile(`<source id="c\d+" title="Télétravail"`).MatchString(last) || !strings.Contains(last, "deux jours par semaine") ||
		!strings.Contains(last, follow) {
		t.Errorf("generation's last message:\n%s\nwant the passage found by the rewrite and the question", last)
	}
	if !slices.ContainsFunc(gen.Messages, func(m llm.Message) bool { return m.Role == llm.RoleAssistant && m.Content == answer1 }) {
		t.Errorf("generation request lacks the previous answer: %+v", gen.Messages)
	}
	for i, r := range reqs {
		if m := storedID.FindString(string(r.Body)); m != "" {
			t.Errorf("request %d holds the stored id %s", i+1, m)
		}
	}
	if !strings.HasPrefix(res.stdout, answer2+"\n\nSources :\n  [c1] ") {
		t.Errorf("second ask stdout:\n%s\nwant the answer and its sources", res.stdout)
	}

	// One session, two exchanges, numbered without gaps; the second
	// retrieval searched the rewrite.
	evs := h.load(t, session)
	checkSeqs(t, evs)
	want := []event.Type{event.SessionStarted,
		event.UserMessage, event.KnowledgeRetrieved, event.AssistantMessage, event.TurnCompleted,
		event.UserMessage, event.KnowledgeRetrieved, event.AssistantMessage, event.TurnCompleted}
	if got := types(evs); !slices.Equal(got, want) {
		t.Fatalf("stored %v, want %v", got, want)
	}
	if p := evs[6].Payload.(event.KnowledgeRetrievedPayload); p.Query != rewrite {
		t.Errorf("second retrieval searched %q, want the rewrite %q", p.Query, rewrite)
	}
	if p := evs[7].Payload.(event.AssistantMessagePayload); len(p.Citations) != 1 {
		t.Errorf("second answer's citations %+v, want one", p.Citations)
	}
	h.env["MOTEUR_LANG"] = "en"
	if audit := h.run(t, "audit", "verify"); audit.code != 0 || audit.stdout != "ok 9 records  "+h.auditFile(session)+"\n" {
		t.Errorf("audit verify: exit %d, stdout %q, stderr %q", audit.code, audit.stdout, audit.stderr)
	}
}

// A knowledge base that does not exist is the user's mistake, as it is for
// run --kb and kb search: exit 2.
func TestAskUnknownBaseIsUsageError(t *testing.T) {
	h := newKBHarness(t)
	withBase(t, h, "docs")
	res := h.run(t, "ask", "--kb", "nope", congesQuestion)
	if !strings.Contains(res.stderr, "nope") {
		t.Errorf("stderr %q does not name the base", res.stderr)
	}
	if res.code != 2 {
		t.Errorf("ask --kb nope: exit %d, want 2 like run --kb nope and kb search nope (a base that does not exist is a usage error, kbError); stderr %q",
			res.code, res.stderr)
	}
	for _, args := range [][]string{{"ask", "--mode", "fuzzy", "q"}, {"ask", "--session", "../x", "q"}, {"ask"}} {
		if res := h.run(t, args...); res.code != 2 {
			t.Errorf("%v: exit %d, want 2; stderr %q", args, res.code, res.stderr)
		}
	}
}

// The README's first steps: a fresh data directory, the shipped handbook,
// no model anywhere.
func TestAskReadmeQuickstart(t *testing.T) {
	h := newKBHarness(t)
	if res := h.run(t, "kb", "create", "exemple"); res.code != 0 {
		t.Fatalf("kb create: exit %d, stderr %q", res.code, res.stderr)
	}
	res := h.run(t, "kb", "add", "exemple", "../../examples/docs")
	if res.code != 0 || !regexp.MustCompile(`^exemple: \d+ added, 0 updated, 0 unchanged, 0 failed`).MatchString(res.stdout) {
		t.Fatalf("kb add examples/docs: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	h.env["MOTEUR_LANG"] = "fr" // the answer in French
	res = h.run(t, "ask", "Combien de jours de congés payés par an ?")
	if res.code != 0 {
		t.Fatalf("ask: exit %d, stderr %q", res.code, res.stderr)
	}
	want := regexp.MustCompile(`^Réponse extraite des documents, sans modèle de langage \(aucun modèle configuré\)\.\n\n` +
		`> [^\n]*30 jours ouvrables par an\. \[c1\] — Congés et absences\n(?s:.*)` +
		`\nSources :\n  \[c1\] Congés et absences — conges\.md › [^\n]*Congés payés\n`)
	if !want.MatchString(res.stdout) {
		t.Errorf("stdout:\n%s\nwant the README's answer (%s)", res.stdout, want)
	}
}

// A model that refuses the quick answer (a bad key) gives way to the
// passages quoted, with a warning giving the server's reason once; the
// stored turn ends as every turn ends, with a TurnCompleted.
func TestAskModelFailureQuotesThePassages(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Status(401, "invalid_api_key", "bad key"))
	h := newKBHarness(t)
	withBase(t, h, "docs")
	withModel(h, srv)
	res := h.run(t, "ask", "--new-session", "s-fail", congesQuestion)
	if res.code != 0 || strings.Count(res.stderr, "bad key") != 1 || !strings.Contains(res.stdout, "[c1]") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 0, the passages quoted and the server's message once", res.code, res.stdout, res.stderr)
	}
	evs := h.load(t, "s-fail")
	checkSeqs(t, evs)
	if slices.Index(types(evs), event.Warning) < 0 {
		t.Errorf("stored %v: no Warning event", types(evs))
	}
	if len(evs) == 0 {
		t.Fatal("nothing stored")
	}
	if p, ok := evs[len(evs)-1].Payload.(event.TurnCompletedPayload); !ok || p.Reason != event.StopNatural {
		t.Errorf("stored %v: want the turn completed", types(evs))
	}
}

// An alias keeps its meaning for the whole session (package cite: "A Table
// is one session's aliases… so an alias keeps its meaning across a
// restart"): two questions of one session never give one alias to two
// passages.
func TestAskSessionKeepsItsAliases(t *testing.T) {
	h := newKBHarness(t)
	withBase(t, h, "docs")
	for i, q := range []string{congesQuestion, "télétravail deux jours par semaine"} {
		if res := h.run(t, "ask", sessionFlag(i), "s-alias", q); res.code != 0 {
			t.Fatalf("ask %q: exit %d, stderr %q", q, res.code, res.stderr)
		}
	}
	evs := h.load(t, "s-alias")
	meaning := map[string]cite.Ref{}
	for _, ev := range evs {
		var refs []cite.Ref
		switch p := ev.Payload.(type) {
		case event.KnowledgeRetrievedPayload:
			refs = p.References
		case event.AssistantMessagePayload:
			refs = p.Citations
		}
		for _, r := range refs {
			if prev, ok := meaning[r.Alias]; ok && prev.ID != r.ID {
				t.Errorf("alias %s stands for two passages in one session: %s (%s) at first, %s (%s) in event %d; "+
					"rag's newContext starts a new cite.Table for each question instead of continuing the session's",
					r.Alias, prev.ID, prev.Title, r.ID, r.Title, ev.Seq)
			}
			meaning[r.Alias] = r
		}
	}
}
