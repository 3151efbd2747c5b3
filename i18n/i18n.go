// Package i18n holds the prompts and the user-facing strings of Moteur in
// French (the default) and English. Strings addressed to the model as part
// of the loop's protocol (the empty-answer nudge, the error suffix) are
// fixed in English, as models are trained on them; what a person reads is
// localised.
package i18n

import "strings"

// Lang is a language of the interface. The zero value is French.
type Lang string

// Languages.
const (
	FR Lang = "fr"
	EN Lang = "en"
)

// Parse reads a language name, defaulting to French.
func Parse(s string) Lang {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "en", "english", "anglais":
		return EN
	}
	return FR
}

// Normalize maps the zero value to FR.
func (l Lang) Normalize() Lang {
	if l == EN {
		return EN
	}
	return FR
}

// Key names a user-facing string.
type Key int

// Keys of the message catalogue.
const (
	EmptyFallback Key = iota
	ContentFiltered
	LengthLimit
	ClosingInstruction
	NoModelConfigured
	UnknownTool
	RewindNote
	NoPassage
	RewindNotUndone
)

var catalogue = map[Lang]map[Key]string{
	FR: {
		EmptyFallback:      "Désolé, je n'ai pas pu produire de réponse. Reformulez la question ou donnez plus de détails.",
		ContentFiltered:    "La réponse a été bloquée par le filtre de contenu du fournisseur.",
		LengthLimit:        "La réponse a dépassé la limite de sortie du modèle à plusieurs reprises. Posez une question plus ciblée ou augmentez max_completion_tokens.",
		ClosingInstruction: "La limite d'itérations est atteinte. N'appelle plus d'outil : rédige maintenant la réponse finale la plus complète possible à partir des résultats déjà obtenus.",
		NoModelConfigured:  "aucun modèle configuré : définissez MOTEUR_BASE_URL, MOTEUR_MODEL et MOTEUR_API_KEY (ou OPENAI_BASE_URL et OPENAI_API_KEY)",
		UnknownTool:        "unknown tool %q; available tools: %s",
		NoPassage:          "Aucun passage pertinent n'a été trouvé dans les bases de connaissances pour cette question.",
		RewindNote:         "[Moteur] Les fichiers du projet ont été remis dans l'état où ils étaient au point %d de la session ; ce qui a été écrit depuis a été annulé. La conversation, elle, continue.",
		RewindNotUndone:    " Sauf les effets de ces appels, qu'aucun retour en arrière ne défait : %s.",
	},
	EN: {
		EmptyFallback:      "Sorry, I could not produce an answer. Please rephrase the question or give more detail.",
		ContentFiltered:    "The answer was blocked by the provider's content filter.",
		LengthLimit:        "The answer hit the model's output limit several times in a row. Ask a narrower question or raise max_completion_tokens.",
		ClosingInstruction: "The iteration limit has been reached. Do not call any more tools: write the most complete final answer you can from the results gathered so far.",
		NoModelConfigured:  "no model configured: set MOTEUR_BASE_URL, MOTEUR_MODEL and MOTEUR_API_KEY (or OPENAI_BASE_URL and OPENAI_API_KEY)",
		UnknownTool:        "unknown tool %q; available tools: %s",
		NoPassage:          "No relevant passage was found in the knowledge bases for this question.",
		RewindNote:         "[Moteur] The project's files were put back as they were at point %d of the session; what was written since was undone. The conversation goes on.",
		RewindNotUndone:    " Except the effects of these calls, which no rewind undoes: %s.",
	},
}

// T returns the string for k in lang l.
func T(l Lang, k Key) string { return catalogue[l.Normalize()][k] }

// Nudge is the user message sent after an empty answer (seed 000).
const Nudge = "Please provide your complete answer now as plain text."

// AnalyzeErrorSuffix ends the error result of a call whose arguments could
// not be used, so the model changes its approach.
const AnalyzeErrorSuffix = "[Analyze the error above and try a different approach.]"
