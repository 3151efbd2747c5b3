package tui

import "github.com/moteur/moteur/i18n"

// texts are the interface's words in one language.
type texts struct {
	placeholder    string
	help           string
	waiting        string // the spinner's word while a turn runs
	stalled        string // %s: how long since the last event
	cancelling     string
	againToQuit    string
	tooSmall       string // %d×%d: the size needed
	thinking       string // %d: characters of reasoning
	turnCancelled  string
	turnRunning    string
	permission     string // %s: risk
	approveKeys    string
	approveKeysNet string
	reasonPrompt   string
	answered       string // %s: the answer
	unknownCommand string // %s: the command
	sessionLine    string // %s %s: id, model
	usageLine      string // tokens, prompt, completion, context %
	modelLine      string // %s %d: model, window
	continued      string // %d: events
	pasteLarge     string // %d %d: bytes, lines
	pasteCut       string // %d %d: kept bytes, dropped bytes
	pasteBinary    string // %d: bytes
	pasteCleaned   string // %d: characters removed
	cleared        string
	noModel        string
	scrollHint     string
	rewindTitle    string
	rewindKeys     string
	noPoints       string
	justNow        string
	minutesAgo     string
	hoursAgo       string
	retry          string // error, attempt, delay in ms
	classified     string
	compacted      string
	compacting     string // the spinner's word while /compact runs
	compactBusy    string
	nothingToComp  string
	compactFailed  string // %s: the error
	moreLines      string
	lines          string
}

var textsEN = texts{
	placeholder:    "Message · Enter sends · Alt-Enter: new line · /help",
	help:           "Keys: Enter sends · Alt-Enter or Ctrl-J new line · Up/Down history · PgUp/PgDn scroll · Ctrl-C cancels the turn (twice quits; at the prompt: clears the line, on an empty line quits)\nCommands: /help · /exit · /clear · /session · /usage · /model · /skills · /agents · /mcp · /rewind · /compact · /NAME ARGS runs the skill NAME",
	waiting:        "working",
	stalled:        "the model is not answering yet (%s)",
	cancelling:     "cancelling the turn…",
	againToQuit:    "Ctrl-C again within 2 s quits",
	tooSmall:       "Terminal too small: moteur chat needs at least %d×%d.",
	thinking:       "thinking… (%d chars)",
	turnCancelled:  "turn cancelled",
	turnRunning:    "a turn is running: wait for it, or Ctrl-C to cancel it (your text is kept)",
	permission:     "Permission needed (risk %s)",
	approveKeys:    "y yes · n no (then a reason) · a always for this session",
	approveKeysNet: "y yes · w yes, with the network · n no (then a reason) · a always for this session",
	reasonPrompt:   "Reason for the model (Enter sends, Esc goes back): ",
	answered:       "answered: %s",
	unknownCommand: "unknown command or skill %s (/help lists the commands)",
	sessionLine:    "session %s · model %s",
	usageLine:      "tokens this chat: %d (prompt %d, completion %d) · context %s",
	modelLine:      "model %s · context window %d tokens",
	continued:      "— continued session (%d stored events): its last turns —",
	pasteLarge:     "pasted %d bytes (%d lines): kept whole, shown as a placeholder",
	pasteCut:       "paste cut to %d bytes: %d bytes dropped (over the limit)",
	pasteBinary:    "paste refused: %d bytes of binary data (NUL bytes or invalid UTF-8)",
	pasteCleaned:   "%d control characters removed from the paste",
	cleared:        "screen cleared (the session keeps its history)",
	noModel:        "unknown",
	scrollHint:     "↑ %d more lines (PgUp/PgDn)",
	rewindTitle:    "Rewind: go back to before which message?",
	rewindKeys:     "↑/↓ choose · Enter rewinds the conversation and the files (those in conflict are left alone) · Esc closes",
	noPoints:       "no rewind point yet: each message you send is one",
	justNow:        "just now",
	minutesAgo:     "%d min ago",
	hoursAgo:       "%d h ago",
	retry:          "%s; retry %d in %d ms",
	classified:     "session classified: %s — only local providers from now on",
	compacted:      "context compacted: %d → %d tokens",
	compacting:     "compacting the context",
	compactBusy:    "/compact: a turn is running; compact once it is over",
	nothingToComp:  "/compact: nothing to compact yet (the conversation is too short)",
	compactFailed:  "/compact failed: %s",
	moreLines:      "… %d more lines",
	lines:          "… (%d lines)",
}

var textsFR = texts{
	placeholder:    "Message · Entrée envoie · Alt-Entrée : nouvelle ligne · /help",
	help:           "Touches : Entrée envoie · Alt-Entrée ou Ctrl-J nouvelle ligne · Haut/Bas historique · PgUp/PgDn défilement · Ctrl-C annule le tour (deux fois : quitte ; à l'invite : efface la ligne, sur une ligne vide : quitte)\nCommandes : /help · /exit · /clear · /session · /usage · /model · /skills · /agents · /mcp · /rewind · /compact · /NOM ARGS lance la compétence NOM",
	waiting:        "en cours",
	stalled:        "le modèle ne répond pas encore (%s)",
	cancelling:     "annulation du tour…",
	againToQuit:    "Ctrl-C encore dans les 2 s pour quitter",
	tooSmall:       "Terminal trop petit : moteur chat demande au moins %d×%d.",
	thinking:       "réflexion… (%d caractères)",
	turnCancelled:  "tour annulé",
	turnRunning:    "un tour est en cours : attendez-le, ou Ctrl-C pour l'annuler (votre texte est gardé)",
	permission:     "Autorisation demandée (risque %s)",
	approveKeys:    "y oui · n non (puis une raison) · a toujours pour cette session",
	approveKeysNet: "y oui · w oui, avec le réseau · n non (puis une raison) · a toujours pour cette session",
	reasonPrompt:   "Raison pour le modèle (Entrée envoie, Échap revient) : ",
	answered:       "réponse : %s",
	unknownCommand: "commande ou compétence inconnue %s (/help liste les commandes)",
	sessionLine:    "session %s · modèle %s",
	usageLine:      "jetons de cette conversation : %d (requête %d, réponse %d) · contexte %s",
	modelLine:      "modèle %s · fenêtre de contexte %d jetons",
	continued:      "— session reprise (%d événements gardés) : ses derniers tours —",
	pasteLarge:     "collé %d octets (%d lignes) : gardé en entier, affiché en repère",
	pasteCut:       "collage coupé à %d octets : %d octets laissés (au-delà de la limite)",
	pasteBinary:    "collage refusé : %d octets de données binaires (octets NUL ou UTF-8 invalide)",
	pasteCleaned:   "%d caractères de contrôle retirés du collage",
	cleared:        "écran effacé (la session garde son historique)",
	noModel:        "inconnu",
	scrollHint:     "↑ %d lignes de plus (PgUp/PgDn)",
	rewindTitle:    "Retour en arrière : revenir avant quel message ?",
	rewindKeys:     "↑/↓ choisir · Entrée revient en arrière, conversation et fichiers (ceux en conflit sont laissés) · Échap ferme",
	noPoints:       "pas encore de point de retour : chaque message envoyé en est un",
	justNow:        "à l'instant",
	minutesAgo:     "il y a %d min",
	hoursAgo:       "il y a %d h",
	retry:          "%s ; nouvel essai %d dans %d ms",
	classified:     "session classifiée : %s — seuls les fournisseurs locaux désormais",
	compacted:      "contexte compacté : %d → %d jetons",
	compacting:     "compactage du contexte",
	compactBusy:    "/compact : un tour est en cours ; compactez une fois qu'il est fini",
	nothingToComp:  "/compact : rien à compacter pour l'instant (la conversation est trop courte)",
	compactFailed:  "échec de /compact : %s",
	moreLines:      "… %d lignes de plus",
	lines:          "… (%d lignes)",
}

func textsFor(l i18n.Lang) *texts {
	if l.Normalize() == i18n.EN {
		return &textsEN
	}
	return &textsFR
}
