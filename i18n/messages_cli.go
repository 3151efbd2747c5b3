package i18n

import (
	"fmt"
	"strings"
)

// The messages a person reads when a provider fails, when a quick answer
// falls back to quoting its passages, and on the command line: each says
// what went wrong and what to do about it.

// ServerUnreachable says that no connection to the server at base could be
// made (cause: "connection refused", "no such host"…) and asks whether it
// runs.
func ServerUnreachable(l Lang, base, cause string) string {
	if l.Normalize() == EN {
		return fmt.Sprintf("%s: is the server at %s running? (check the provider's base_url or MOTEUR_BASE_URL)", cause, base)
	}
	return fmt.Sprintf("%s : le serveur à l'adresse %s est-il démarré ? (vérifiez le base_url du fournisseur ou MOTEUR_BASE_URL)", cause, base)
}

// KeyVarUnset says that the variable a provider's api_key_env names is not
// set, so its requests go without a key.
func KeyVarUnset(l Lang, variable string) string {
	if l.Normalize() == EN {
		return fmt.Sprintf("the variable %s named by api_key_env is not set: export %s=… with the server's key", variable, variable)
	}
	return fmt.Sprintf("la variable %s nommée par api_key_env n'est pas définie : exportez %s=… avec la clé du serveur", variable, variable)
}

// KeyVarUnsetAtStart warns, before any request, that provider's key
// variable is not set.
func KeyVarUnsetAtStart(l Lang, provider, variable string) string {
	if l.Normalize() == EN {
		return fmt.Sprintf("provider %s: %s; its requests go without a key", provider, KeyVarUnset(l, variable))
	}
	return fmt.Sprintf("fournisseur %s : %s ; ses requêtes partent sans clé", provider, KeyVarUnset(l, variable))
}

// ModelNotServed says that the server does not serve model, and which
// models it does.
func ModelNotServed(l Lang, model string, served []string) string {
	list := strings.Join(served, ", ")
	if l.Normalize() == EN {
		return fmt.Sprintf("the server has no model %q; the models it serves: %s", model, list)
	}
	return fmt.Sprintf("le serveur n'a pas de modèle %q ; les modèles qu'il sert : %s", model, list)
}

// ModelFailedFallback is the warning of a quick answer whose model failed
// (reason): the passages found are quoted instead.
func ModelFailedFallback(l Lang, reason string) string {
	if l.Normalize() == EN {
		return "the model did not answer (" + reason + "): answered by quoting the passages found"
	}
	return "le modèle n'a pas répondu (" + reason + ") : réponse par citation des passages trouvés"
}

// OutboundFallback is the warning of a quick answer that no configured
// model may receive (reason): the passages are quoted, nothing was sent.
func OutboundFallback(l Lang, reason string) string {
	if l.Normalize() == EN {
		return "no configured model may receive these passages (" + reason + "): answered by quoting them, nothing was sent"
	}
	return "aucun modèle configuré ne peut recevoir ces passages (" + reason + ") : réponse par citation, rien n'a été envoyé"
}

// NoPassageHint says what to try when no passage was found; rejected says
// that the reranker judged every candidate irrelevant.
func NoPassageHint(l Lang, rejected bool) string {
	switch {
	case l.Normalize() == EN && rejected:
		return "The reranker judged every candidate irrelevant. For identifiers, error codes or exact terms, try --mode keyword."
	case l.Normalize() == EN:
		return "No passage passed the relevance thresholds. For identifiers, error codes or exact terms, try --mode keyword; otherwise rephrase the question."
	case rejected:
		return "Le reclassement a jugé chaque candidat hors sujet. Pour un identifiant, un code d'erreur ou un terme exact, essayez --mode keyword."
	}
	return "Aucun passage n'a passé les seuils de pertinence. Pour un identifiant, un code d'erreur ou un terme exact, essayez --mode keyword ; sinon reformulez la question."
}

// AskSession tells which session a quick answer was stored in and how to
// continue it.
func AskSession(l Lang, id string) string {
	if l.Normalize() == EN {
		return fmt.Sprintf("session %s (continue with: moteur ask --session %s QUESTION)", id, id)
	}
	return fmt.Sprintf("session %s (pour continuer : moteur ask --session %s QUESTION)", id, id)
}
