package extractive

import (
	"context"
	"errors"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider"
)

var leave = []Source{
	{ID: "c1", Title: "Guide des congés", Headings: "Congés > Congés payés", Text: "Chaque salarié acquiert des congés.\n" +
		"Le droit aux congés payés est de 2,5 jours ouvrables par mois de travail effectif. " +
		"La période de référence court du 1er juin au 31 mai. Les congés doivent être posés avant le 31 mai.\n\n" +
		"- Les jours non pris sont perdus.\n- Le report est possible sur accord."},
	{ID: "c2", Title: "Règlement intérieur", Text: "Les horaires de travail sont affichés. Le télétravail est possible deux jours par semaine."},
	{ID: "c3", Title: "Guide des congés", Text: "Rien à voir ici."},
}

// ask streams one answer to question over sources.
func ask(t *testing.T, cfg Config, sources []Source, question string) (llm.Response, []string) {
	t.Helper()
	var deltas []string
	req := llm.Request{Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: "Answer from the sources."},
		{Role: llm.RoleUser, Content: FormatPrompt(sources, question)},
	}}
	resp, err := New(cfg).Stream(context.Background(), req, func(d llm.Delta) { deltas = append(deltas, d.Text) })
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(deltas, ""); got != resp.Text {
		t.Errorf("deltas %q do not add up to the text %q", got, resp.Text)
	}
	if resp.Finish != llm.FinishStop || resp.Usage == nil || *resp.Usage != (llm.Usage{}) || resp.Model != "extractive" {
		t.Errorf("response %+v", resp)
	}
	return resp, deltas
}

func TestFormatPrompt(t *testing.T) {
	got := FormatPrompt([]Source{
		{ID: "c1", Title: `Le "guide"`, Headings: "Section > Sub", Text: "Line one.\nA </source> inside."},
		{ID: "c2", Title: "Two\nlines & more", Text: ""},
	}, "  What now?\n")
	want := `<sources>
<source id="c1" title="Le &quot;guide&quot;" headings="Section > Sub">
Line one.
A <\/source> inside.
</source>
<source id="c2" title="Two&#10;lines &amp; more">

</source>
</sources>

Question: What now?`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestParsePromptRoundTrip(t *testing.T) {
	sources := []Source{
		{ID: `c"1`, Title: "a > b & c\r\n&amp;", Headings: "x", Text: "</source>\n</sources>\n<\\/source <\\\\/source\n"},
		{ID: "c2", Text: "\n\n<source id=\"c9\">\n"},
		{},
	}
	got, q, ok := ParsePrompt(FormatPrompt(sources, "Question: why?"))
	if !ok || !reflect.DeepEqual(got, sources) || q != "Question: why?" {
		t.Errorf("got %q, %q, %v", got, q, ok)
	}
}

func TestParsePromptLeniencyAndRefusals(t *testing.T) {
	preamble := "Use only these passages.\n\n" + FormatSources(leave[:1]) + "\n\nQuestion: combien ?\n"
	if got, q, ok := ParsePrompt(preamble); !ok || len(got) != 1 || got[0] != leave[0] || q != "combien ?" {
		t.Errorf("with a preamble: %q, %q, %v", got, q, ok)
	}
	if got, q, ok := ParsePrompt("<sources>\n</sources>"); !ok || len(got) != 0 || q != "" {
		t.Errorf("empty block: %q, %q, %v", got, q, ok)
	}
	for _, bad := range []string{
		"",
		"just a question",
		"<sources>\n<source id=\"c1\">\ntext\n", // unterminated source
		"<sources>\n<source id=\"c1\">\ntext\n</source>\n",         // unterminated block
		"<sources>\n<source id=\"c1>\ntext\n</source>\n</sources>", // unterminated attribute
		"<sources>\n<source id=c1>\ntext\n</source>\n</sources>",   // unquoted attribute
		"<sources>\n<sourcex>\ntext\n</source>\n</sources>",
		"<sources>\nstray text\n</sources>",
	} {
		if got, _, ok := ParsePrompt(bad); ok {
			t.Errorf("ParsePrompt(%q) = %q, want a refusal", bad, got)
		}
	}
}

func FuzzPromptRoundTrip(f *testing.F) {
	f.Add("c1", "Titre", "A > B", "Texte.\nSuite.", "Quoi ?")
	f.Add(`"`, "&quot;\n", "", "</source>", " Question: x ")
	f.Add("", "", "&#10;", "<\\/source\n\n</sources>", "")
	f.Add("c\r", "\xff", "h", "\n", "\n")
	f.Fuzz(func(t *testing.T, id, title, headings, text, question string) {
		sources := []Source{
			{ID: id, Title: title, Headings: headings, Text: text},
			{ID: text, Title: id, Headings: title, Text: headings},
		}
		got, q, ok := ParsePrompt(FormatPrompt(sources, question))
		if !ok || !reflect.DeepEqual(got, sources) || q != strings.TrimSpace(question) {
			t.Fatalf("round trip of %q, %q\ngot %q, %q, %v", sources, question, got, q, ok)
		}
	})
}

func TestGoldenAnswer(t *testing.T) {
	resp, deltas := ask(t, Config{}, leave, "Combien de jours de congés payés par mois ?")
	want := "Réponse extraite des documents, sans modèle de langage (aucun modèle configuré).\n\n" +
		"> Le droit aux congés payés est de 2,5 jours ouvrables par mois de travail effectif. [c1] — Guide des congés\n\n" +
		"> Le télétravail est possible deux jours par semaine. [c2] — Règlement intérieur"
	if resp.Text != want {
		t.Errorf("got\n%s\nwant\n%s", resp.Text, want)
	}
	if len(deltas) != 3 {
		t.Errorf("%d deltas, want one per paragraph: %q", len(deltas), deltas)
	}
	again, _ := ask(t, Config{}, leave, "Combien de jours de congés payés par mois ?")
	if again.Text != resp.Text {
		t.Errorf("second answer differs:\n%s", again.Text)
	}
}

func TestAnswerQuotesTheMatchingSentence(t *testing.T) {
	resp, _ := ask(t, Config{Lang: "en", MaxPassages: 1, MaxSentences: 1}, leave, "Is TELETRAVAIL possible?")
	want := "> Le télétravail est possible deux jours par semaine. [c2] — Règlement intérieur"
	if !strings.HasSuffix(resp.Text, "\n\n"+want) || strings.Contains(resp.Text, "[c1]") {
		t.Errorf("got\n%s", resp.Text)
	}
}

func TestSentencesFarApartAreElided(t *testing.T) {
	src := []Source{{ID: "c1", Title: "T", Text: "Alpha beta. Gamma alpha beta! Nothing here? Beta end."}}
	resp, _ := ask(t, Config{MaxSentences: 2}, src, "alpha beta")
	if !strings.Contains(resp.Text, "> Alpha beta. Gamma alpha beta! [c1] — T") {
		t.Errorf("adjacent sentences: got\n%s", resp.Text)
	}
	src[0].Text = "Alpha beta. Nothing here. Beta alpha end."
	resp, _ = ask(t, Config{MaxSentences: 2}, src, "alpha beta")
	if !strings.Contains(resp.Text, "> Alpha beta. … Beta alpha end. [c1] — T") {
		t.Errorf("distant sentences: got\n%s", resp.Text)
	}
}

// A sentence holding less than half of the question words the best one
// holds is left out: the other rows of a table that share one word.
func TestWeakSentencesLeftOut(t *testing.T) {
	src := []Source{{ID: "c1", Title: "Codes", Text: "| ERR 4012 | auth | Token expired |\n| ERR 4031 | auth | Account locked |\n| ERR 5001 | storage | Server down |"}}
	resp, _ := ask(t, Config{}, src, "what does ERR 4031 mean?")
	if !strings.Contains(resp.Text, "Account locked") || strings.Contains(resp.Text, "Token expired") || strings.Contains(resp.Text, "Server down") {
		t.Errorf("got\n%s", resp.Text)
	}
}

func TestTiesKeepSourceOrder(t *testing.T) {
	src := []Source{
		{ID: "c1", Title: "One", Text: "The budget is set."},
		{ID: "c2", Title: "Two", Text: "The budget is voted."},
		{ID: "c3", Title: "Three", Text: "The budget is spent."},
	}
	resp, _ := ask(t, Config{Lang: "en", MaxPassages: 2}, src, "budget")
	if !strings.Contains(resp.Text, "[c1]") || !strings.Contains(resp.Text, "[c2]") || strings.Contains(resp.Text, "[c3]") ||
		strings.Index(resp.Text, "[c1]") > strings.Index(resp.Text, "[c2]") {
		t.Errorf("got\n%s", resp.Text)
	}
}

func TestFirstLineByLanguage(t *testing.T) {
	for lang, want := range map[string]string{
		"":   "Réponse extraite des documents, sans modèle de langage (aucun modèle configuré).",
		"fr": "Réponse extraite des documents, sans modèle de langage (aucun modèle configuré).",
		"EN": "Answer extracted from the documents, without a language model (no model configured).",
	} {
		resp, _ := ask(t, Config{Lang: lang}, leave, "congés")
		if first, _, _ := strings.Cut(resp.Text, "\n"); first != want {
			t.Errorf("Lang %q: first line %q", lang, first)
		}
	}
}

func TestNoMatchListsTheDocuments(t *testing.T) {
	resp, _ := ask(t, Config{Lang: "en"}, leave, "What is the pizza recipe?")
	want := "Answer extracted from the documents, without a language model (no model configured).\n\n" +
		"The documents found do not seem to answer the question. Documents consulted:\n" +
		"- Guide des congés [c1] [c3]\n- Règlement intérieur [c2]"
	if resp.Text != want {
		t.Errorf("got\n%s", resp.Text)
	}
	resp, _ = ask(t, Config{}, leave, "Et la pizza ?")
	if !strings.Contains(resp.Text, "Les documents trouvés ne semblent pas répondre à la question.") {
		t.Errorf("got\n%s", resp.Text)
	}
}

func TestNoSources(t *testing.T) {
	for _, msgs := range [][]llm.Message{
		nil,
		{{Role: llm.RoleUser, Content: "Combien de jours de congés ?"}},
		{{Role: llm.RoleUser, Content: FormatPrompt(nil, "Combien de jours de congés ?")}},
		// Only the last user message counts.
		{{Role: llm.RoleUser, Content: FormatPrompt(leave, "congés")}, {Role: llm.RoleAssistant, Content: "…"},
			{Role: llm.RoleUser, Content: "et ensuite ?"}},
	} {
		resp, err := New(Config{}).Stream(context.Background(), llm.Request{Messages: msgs}, nil)
		want := "Réponse extraite des documents, sans modèle de langage (aucun modèle configuré).\n\n" +
			"Aucun passage pertinent n'a été trouvé dans les bases de connaissances."
		if err != nil || resp.Text != want {
			t.Errorf("%d messages: got %q, %v", len(msgs), resp.Text, err)
		}
	}
	resp, _ := New(Config{Lang: "en"}).Stream(context.Background(), llm.Request{}, nil)
	if !strings.HasSuffix(resp.Text, "\n\nNo relevant passage was found in the knowledge bases.") {
		t.Errorf("got %q", resp.Text)
	}
}

func TestCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	called := false
	req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: FormatPrompt(leave, "congés")}}}
	_, err := New(Config{}).Stream(ctx, req, func(llm.Delta) { called = true })
	if !errors.Is(err, context.Canceled) || called {
		t.Errorf("got %v (deltas sent: %v)", err, called)
	}
	if provider.IsTransient(err) {
		t.Errorf("a cancellation is not transient")
	}
}

func TestIdentity(t *testing.T) {
	var p provider.Provider = New(Config{})
	if p.Name() != "extractive" || p.Model() != "extractive" || !New(Config{}).Local() {
		t.Errorf("name %q model %q", p.Name(), p.Model())
	}
}

func TestKeywordsFoldCaseAndAccents(t *testing.T) {
	got := keywords("L'ÉTÉ, où les Congés PAYÉS coûtent 2 œufs — the Cafe\u0301s")
	want := map[string]bool{"2": true, "conge": true, "paye": true, "coutent": true, "oeuf": true, "cafe": true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestSentencesFollowMarkdownBlocks(t *testing.T) {
	got := sentences("# Titre\nUne phrase coupée\nen deux. Une autre ! 3.5 reste entier.\n- item un\n- item deux\n\n| a | b |\n1. premier")
	want := []string{"Titre", "Une phrase coupée en deux.", "Une autre !", "3.5 reste entier.", "item un", "item deux", "a | b", "premier"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// The provider must never reach the network: no file of the package
// imports net or a package under it.
func TestNoNetworkImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if path == "net" || strings.HasPrefix(path, "net/") {
				t.Errorf("%s imports %s", name, path)
			}
		}
	}
}
