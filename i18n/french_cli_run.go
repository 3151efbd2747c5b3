package i18n

// The long help texts of run, chat, approve and deny share a part (the
// agents' tools, configuration and approvals; what answers a request): the
// parts are translated on their own, and so is each whole text, which the
// help shows.

const (
	agentHelpEN = "Tools: the agent reads, writes and searches the project's files (read_file, write_file,\nedit_file, list_files, glob, grep: nothing outside the project root), runs shell commands\n(shell_exec) and plans (thinking, todo_write). Before a file tool changes a file, its content\nis kept in $MOTEUR_HOME/checkpoints: moteur sessions rewind puts files back as they were.\nShell commands run in bubblewrap where it works (--sandbox auto): the project writable, the\nrest of the filesystem read-only, no network. --sandbox bwrap refuses commands without it;\n--sandbox none runs them with your full rights. The restricted and airgapped profiles require\nbwrap. A rewind cannot undo what a shell command changed.\n\nConfiguration: ~/.config/moteur/config.yaml ($XDG_CONFIG_HOME/moteur), then the project's\n.moteur/config.yaml, then MOTEUR_BASE_URL / MOTEUR_MODEL / MOTEUR_API_KEY (one more provider,\nplaced first), then the organisation policy ($MOTEUR_POLICY, default /etc/moteur/policy.yaml),\nwhich nothing loosens. A file or a policy that cannot be read stops the command: nothing runs.\n\nApprovals: a tool call that the rules or the mode say to ask about is shown on standard error\nwith its risk, and when standard input is a terminal you answer there:\n  y  run it            n  refuse it (\"n not that folder\" tells the model why)\n  a  run it, and the same call again without asking for the rest of the session\n  w  run it with the network (sandboxed shell commands only)\nWhen standard input is not a terminal (a script, CI, a pipe), nobody can answer: the call is\nrefused at once and the turn goes on; allow such calls beforehand with --allow or --mode\n(or, with moteur run --wait-approvals, answer them from another terminal). A request can also\nbe answered from another terminal with moteur sessions approve / deny (moteur sessions pending).\n"
	agentHelpFR = "Outils : l'agent lit, écrit et cherche dans les fichiers du projet (read_file, write_file,\n" +
		"edit_file, list_files, glob, grep : rien hors de la racine du projet), lance des commandes shell\n" +
		"(shell_exec) et planifie (thinking, todo_write). Avant qu'un outil de fichiers ne modifie un fichier,\n" +
		"son contenu est gardé dans $MOTEUR_HOME/checkpoints : moteur sessions rewind remet les fichiers\n" +
		"comme ils étaient. Les commandes shell tournent dans bubblewrap là où il fonctionne (--sandbox auto) :\n" +
		"le projet en écriture, le reste du système de fichiers en lecture seule, pas de réseau.\n" +
		"--sandbox bwrap refuse les commandes sans lui ; --sandbox none les lance avec tous vos droits.\n" +
		"Les profils restricted et airgapped exigent bwrap. Un retour en arrière (rewind) ne défait pas ce\n" +
		"qu'une commande shell a changé.\n\n" +
		"Configuration : ~/.config/moteur/config.yaml ($XDG_CONFIG_HOME/moteur), puis le fichier\n" +
		".moteur/config.yaml du projet, puis MOTEUR_BASE_URL / MOTEUR_MODEL / MOTEUR_API_KEY (un fournisseur\n" +
		"de plus, placé en tête), puis la politique de l'organisation ($MOTEUR_POLICY, par défaut\n" +
		"/etc/moteur/policy.yaml), que rien n'assouplit. Un fichier ou une politique illisible arrête la\n" +
		"commande : rien ne s'exécute.\n\n" +
		"Autorisations : un appel d'outil sur lequel les règles ou le mode demandent de vous consulter\n" +
		"s'affiche sur la sortie d'erreur avec son risque ; si l'entrée standard est un terminal, vous\n" +
		"répondez là :\n" +
		"  y  l'exécuter         n  le refuser (« n pas ce dossier » dit pourquoi au modèle)\n" +
		"  a  l'exécuter, et le même appel sans redemander pour le reste de la session\n" +
		"  w  l'exécuter avec le réseau (commandes shell isolées seulement)\n" +
		"Si l'entrée standard n'est pas un terminal (un script, la CI, un tube), personne ne peut répondre :\n" +
		"l'appel est refusé aussitôt et le tour continue ; autorisez ces appels d'avance avec --allow ou --mode\n" +
		"(ou, avec moteur run --wait-approvals, répondez-y depuis un autre terminal). Une demande peut aussi\n" +
		"recevoir sa réponse d'un autre terminal avec moteur sessions approve / deny (moteur sessions pending).\n"

	runHeadEN = "Run one agent turn on PROMPT (its words joined with spaces) and print the answer.\nWith PROMPT \"-\", or none and standard input not a terminal, the prompt is read from standard input.\n\nWith --session ID the turn continues that stored session, even one whose process was killed\n(a tool call left without a result is answered as unfinished); an ID that is not stored is an\nerror that lists the closest stored ids. --continue (-c) continues the most recent session of\nthis project (the working directory); --new-session ID starts a new session under that id.\nA session is used by one process at a time. When the turn ends, standard error says\n\"session: ID\", whatever the outcome.\n\n"
	runHeadFR = "Exécute un tour d'agent sur PROMPT (ses mots joints par des espaces) et affiche la réponse.\n" +
		"Avec PROMPT « - », ou sans PROMPT quand l'entrée standard n'est pas un terminal, le prompt est lu\n" +
		"sur l'entrée standard.\n\n" +
		"Avec --session ID, le tour continue cette session enregistrée, même si son processus a été tué\n" +
		"(un appel d'outil resté sans résultat reçoit la réponse « inachevé ») ; un ID qui n'est pas\n" +
		"enregistré est une erreur qui liste les ids enregistrés les plus proches. --continue (-c) continue\n" +
		"la session la plus récente de ce projet (le répertoire de travail) ; --new-session ID commence une\n" +
		"nouvelle session sous cet id. Une session sert à un seul processus à la fois. À la fin du tour, la\n" +
		"sortie d'erreur affiche « session: ID », quelle que soit l'issue.\n\n"
	runTailEN = "With --wait-approvals, a request asked when standard input is not a terminal is not refused: it\nwaits, up to the approval timeout (--approval-timeout, 10 min by default), for an answer given from another terminal with\nmoteur sessions approve ID N or moteur sessions deny ID N (moteur sessions pending lists them),\nand standard error says so, once per request. On a terminal the question is asked as usual, and\nan answer given elsewhere first counts too.\n\nCtrl-C stops the turn at once: the model is asked nothing more, and the session records the\nturn as cancelled.\n\nExit status: 0 when the turn completed (refused calls included), 1 on an error, 2 on bad usage\n(an unknown --session included), 130 when Ctrl-C interrupted the turn."
	runTailFR = "Avec --wait-approvals, une demande posée alors que l'entrée standard n'est pas un terminal n'est pas\n" +
		"refusée : elle attend, jusqu'au délai d'autorisation (--approval-timeout, 10 min par défaut), une\n" +
		"réponse donnée d'un autre terminal avec moteur sessions approve ID N ou moteur sessions deny ID N\n" +
		"(moteur sessions pending les liste), et la sortie d'erreur le signale, une fois par demande. Sur un\n" +
		"terminal, la question est posée comme d'habitude, et une réponse donnée ailleurs d'abord compte aussi.\n\n" +
		"Ctrl-C arrête le tour aussitôt : on ne demande plus rien au modèle, et la session enregistre le tour\n" +
		"comme annulé.\n\n" +
		"Code de sortie : 0 quand le tour s'est terminé (appels refusés compris), 1 sur une erreur, 2 sur une\n" +
		"mauvaise utilisation (--session inconnue comprise), 130 quand Ctrl-C a interrompu le tour."

	chatHeadEN = "Talk with an agent in the terminal. On a terminal this is a full-screen interface: the answer\nstreams and shows as Markdown, each tool call is a live line, a permission request opens a dialog\nwith the command or the diff of the write (y yes, n no with a reason, a always, w with the network).\nEnter sends, Alt-Enter or Ctrl-J starts a new line, Up/Down walk the history (kept per project),\nPgUp/PgDn scroll. Ctrl-C cancels the turn at once, twice within 2 s quits; at the prompt it clears\nthe line, and on an empty line it quits (Ctrl-D too). /help lists the commands.\n\nWith --plain, or standard input not a terminal, prompts are read line by line: end a line with \\\nto continue the prompt on the next one; Ctrl-C during a turn stops that turn only; Ctrl-C at the\nprompt, Ctrl-D, /exit or /quit ends the chat. Off a terminal the first turn that fails ends the\nchat with exit status 1.\n\nWith --session ID the chat continues that stored session, with -c the project's latest one\n(see moteur run --help).\n\n"
	chatHeadFR = "Dialogue avec un agent dans le terminal. Sur un terminal, c'est une interface plein écran : la\n" +
		"réponse arrive au fil de l'eau, rendue en Markdown, chaque appel d'outil est une ligne vivante, une\n" +
		"demande d'autorisation ouvre une boîte de dialogue avec la commande ou le diff de l'écriture (y oui,\n" +
		"n non avec une raison, a toujours, w avec le réseau). Entrée envoie, Alt-Entrée ou Ctrl-J commence\n" +
		"une nouvelle ligne, Haut/Bas parcourent l'historique (gardé par projet), PgUp/PgDn font défiler.\n" +
		"Ctrl-C annule le tour aussitôt, deux fois en 2 s quitte ; à l'invite il efface la ligne, et sur une\n" +
		"ligne vide il quitte (Ctrl-D aussi). /help liste les commandes.\n\n" +
		"Avec --plain, ou quand l'entrée standard n'est pas un terminal, les prompts sont lus ligne à ligne :\n" +
		"terminez une ligne par \\ pour continuer le prompt sur la suivante ; Ctrl-C pendant un tour n'arrête\n" +
		"que ce tour ; Ctrl-C à l'invite, Ctrl-D, /exit ou /quit terminent le dialogue. Hors terminal, le\n" +
		"premier tour qui échoue termine le dialogue avec le code de sortie 1.\n\n" +
		"Avec --session ID, le dialogue continue cette session enregistrée, avec -c la dernière du projet\n" +
		"(voir moteur run --help).\n\n"

	answersHelpEN = "PERMISSION is the request's number in the session (3) or its full id (ID/3), as moteur sessions\npending lists them. The turn that asked, in whichever process runs it, resumes with the answer.\nA request is answered once: a second answer, from here or anywhere else, is refused and says\nwho answered first and how. A request whose process stopped can no longer be answered (the\nsession's next turn withdraws it, and the model is told the call was not run).\n\nExit status: 0 when the answer was taken, 1 when it was not (unknown request, already answered\nor withdrawn, the turn no longer running, --network for a call outside the sandbox), 2 on bad usage."
	answersHelpFR = "PERMISSION est le numéro de la demande dans la session (3) ou son id complet (ID/3), tels que\n" +
		"moteur sessions pending les liste. Le tour qui a demandé, quel que soit le processus qui l'exécute,\n" +
		"reprend avec la réponse. Une demande reçoit une seule réponse : une seconde, d'ici ou d'ailleurs,\n" +
		"est refusée et dit qui a répondu en premier, et comment. Une demande dont le processus s'est arrêté\n" +
		"ne peut plus recevoir de réponse (le tour suivant de la session la retire, et le modèle apprend que\n" +
		"l'appel n'a pas été exécuté).\n\n" +
		"Code de sortie : 0 quand la réponse a été prise, 1 sinon (demande inconnue, déjà répondue ou retirée,\n" +
		"tour qui ne tourne plus, --network pour un appel hors du bac à sable), 2 sur une mauvaise utilisation."

	approveHeadEN = "Allow the call that permission request PERMISSION of session ID asks about, as y at the question\nwould. --remember also allows the same call for the rest of the session (a); --network runs a\nsandboxed shell command with the network, for this call only (w), and is refused for any other.\n\n"
	approveHeadFR = "Autorise l'appel sur lequel porte la demande d'autorisation PERMISSION de la session ID, comme y à la\n" +
		"question. --remember autorise aussi le même appel pour le reste de la session (a) ; --network exécute\n" +
		"une commande shell isolée avec le réseau, pour cet appel seulement (w), et est refusé pour tout autre.\n\n"

	denyHeadEN = "Refuse the call that permission request PERMISSION of session ID asks about, as n at the\nquestion would. --reason is given to the model with the refusal, so that it can change course.\n\n"
	denyHeadFR = "Refuse l'appel sur lequel porte la demande d'autorisation PERMISSION de la session ID, comme n à la\n" +
		"question. --reason est transmise au modèle avec le refus, pour qu'il change de cap.\n\n"
)

func init() {
	addFrench(map[string]string{
		agentHelpEN: agentHelpFR,
		runHeadEN:   runHeadFR,
		runTailEN:   runTailFR,
		runHeadEN + agentHelpEN + "\n" + runTailEN: runHeadFR + agentHelpFR + "\n" + runTailFR,
		chatHeadEN:                    chatHeadFR,
		chatHeadEN + agentHelpEN:      chatHeadFR + agentHelpFR,
		answersHelpEN:                 answersHelpFR,
		approveHeadEN:                 approveHeadFR,
		approveHeadEN + answersHelpEN: approveHeadFR + answersHelpFR,
		denyHeadEN:                    denyHeadFR,
		denyHeadEN + answersHelpEN:    denyHeadFR + answersHelpFR,
	})
}

// The French of moteur's root, run, chat, ask, demo and sessions pending,
// approve and deny: their help, messages and errors, the approval
// questions, and the notes shown with a turn.
func init() {
	addFrench(map[string]string{
		// root
		"Run tool-using LLM agents over your project": "Lancer sur votre projet des agents LLM qui utilisent des outils",
		"moteur runs tool-using LLM agents over a project's files, with an audit log of everything they do,\nand answers questions from your documents: moteur kb add NAME FOLDER, then moteur ask QUESTION\n(works with no model at all) or moteur run --kb NAME PROMPT.\n\nModel: set MOTEUR_BASE_URL, MOTEUR_MODEL and MOTEUR_API_KEY (any OpenAI-compatible server),\nor OPENAI_BASE_URL and OPENAI_API_KEY, or list providers: in .moteur/config.yaml or\n$XDG_CONFIG_HOME/moteur/config.yaml (see moteur run --help). An organisation policy\n($MOTEUR_POLICY, default /etc/moteur/policy.yaml) applies on top of everything.\n\nData goes to $MOTEUR_HOME, default $XDG_DATA_HOME/moteur:\nmoteur.db (the sessions and knowledge bases), audit/ (one hash-chained audit log per session, never deleted),\ntranscripts/ (each session's events as JSON lines), checkpoints/ (the content files had before\nthe agent changed them, which moteur sessions rewind restores).": "moteur lance des agents LLM qui utilisent des outils sur les fichiers d'un projet, avec un journal\n" +
			"d'audit de tout ce qu'ils font, et répond aux questions d'après vos documents : moteur kb add NOM\n" +
			"DOSSIER, puis moteur ask QUESTION (fonctionne sans aucun modèle) ou moteur run --kb NOM PROMPT.\n\n" +
			"Modèle : définissez MOTEUR_BASE_URL, MOTEUR_MODEL et MOTEUR_API_KEY (tout serveur compatible OpenAI),\n" +
			"ou OPENAI_BASE_URL et OPENAI_API_KEY, ou listez des providers: dans .moteur/config.yaml ou\n" +
			"$XDG_CONFIG_HOME/moteur/config.yaml (voir moteur run --help). Une politique d'organisation\n" +
			"($MOTEUR_POLICY, par défaut /etc/moteur/policy.yaml) s'applique par-dessus tout.\n\n" +
			"Les données vont dans $MOTEUR_HOME, par défaut $XDG_DATA_HOME/moteur :\n" +
			"moteur.db (les sessions et les bases de connaissances), audit/ (un journal d'audit chaîné par\n" +
			"hachage par session, jamais supprimé), transcripts/ (les événements de chaque session en lignes\n" +
			"JSON), checkpoints/ (le contenu qu'avaient les fichiers avant que l'agent ne les modifie, que\n" +
			"moteur sessions rewind restaure).",
		"language of messages and prompts: fr or en (default: the config file's lang, else $MOTEUR_LANG, else fr)": "langue des messages et des prompts : fr ou en (par défaut : le lang du fichier de configuration, sinon $MOTEUR_LANG, sinon fr)",
		"unknown command %q for %q":                         "commande %q inconnue pour %q",
		"; did you mean %s?":                                " ; vouliez-vous dire %s ?",
		"%q is not a number (want a whole number, e.g. 10)": "%q n'est pas un nombre (il faut un nombre entier, par ex. 10)",
		"%q is not a number":                                "%q n'est pas un nombre",
		"%q is not a duration (e.g. 30s, 5m, 1h30m)":        "%q n'est pas une durée (par ex. 30s, 5m, 1h30m)",
		"%q is not true or false":                           "%q n'est ni true ni false",
		" or ":                                              " ou ",
		"%q is not one of %s":                               "%q n'est pas l'une des valeurs %s",

		// run
		"Run one agent turn non-interactively": "Exécuter un tour d'agent, sans interaction",
		"  moteur run \"what does this project do?\"\n  git diff | moteur run --json -\n  moteur run --mode read_only \"review the last commit\"\n  moteur run --agent juriste \"what does clause 4 allow?\"\n  moteur run --allow 'shell_exec(go test*)' \"fix the failing test\"\n  moteur run --mode confirm --wait-approvals \"tidy the docs\" </dev/null\n  moteur run --session s-20260101T120000-0123456789abcdef \"and the tests?\"\n  moteur run -c \"and the tests?\"": "  moteur run \"que fait ce projet ?\"\n" +
			"  git diff | moteur run --json -\n" +
			"  moteur run --mode read_only \"relis le dernier commit\"\n" +
			"  moteur run --agent juriste \"que permet la clause 4 ?\"\n" +
			"  moteur run --allow 'shell_exec(go test*)' \"corrige le test qui échoue\"\n" +
			"  moteur run --mode confirm --wait-approvals \"range la doc\" </dev/null\n" +
			"  moteur run --session s-20260101T120000-0123456789abcdef \"et les tests ?\"\n" +
			"  moteur run -c \"et les tests ?\"",
		"print every event as one JSON object per line, and nothing else, on stdout":    "affiche chaque événement comme un objet JSON par ligne, et rien d'autre, sur stdout",
		"run the skill NAME with PROMPT as its arguments, as /NAME PROMPT does in chat": "exécute le skill NAME avec PROMPT pour arguments, comme /NAME PROMPT dans chat",
		"when standard input is not a terminal, let permission requests wait for an answer\nfrom another terminal (moteur sessions approve / deny) instead of refusing them": "quand l'entrée standard n'est pas un terminal, les demandes d'autorisation attendent une réponse\n" +
			"d'un autre terminal (moteur sessions approve / deny) au lieu d'être refusées",
		"--skill: the agent %s is a quick-answer agent, which runs no skill": "--skill : l'agent %s est un agent de réponse rapide, qui n'exécute aucun skill",
		"interrupted: %w":     "interrompu : %w",
		"session %s: %w":      "session %s : %w",
		"write output: %w":    "écriture de la sortie : %w",
		"not sent: %w":        "non envoyé : %w",
		"moteur: warning: %s": "moteur: attention : %s",
		"moteur: note: %s":    "moteur: remarque : %s",
		"moteur: note: shell commands run unsandboxed (--sandbox none), with your full rights": "moteur: remarque : les commandes shell tournent hors bac à sable (--sandbox none), avec tous vos droits",
		"moteur: note: shell commands run unsandboxed: %s":                                     "moteur: remarque : les commandes shell tournent hors bac à sable : %s",
		"read prompt from standard input: %w":                                                  "lecture du prompt sur l'entrée standard : %w",
		"prompt on standard input is larger than %d MiB":                                       "le prompt sur l'entrée standard dépasse %d Mio",
		"no prompt: give it as arguments or on standard input":                                 "aucun prompt : donnez-le en arguments ou sur l'entrée standard",

		// chat
		"Talk with an agent, turn after turn":                                               "Dialoguer avec un agent, tour après tour",
		"on a terminal too, read prompts line by line instead of the full-screen interface": "sur un terminal aussi, lit les prompts ligne à ligne au lieu de l'interface plein écran",
		"/exit or /quit ends the chat, /session prints the session id, /skills lists the skills, /NAME ARGS runs the skill NAME, /agents lists the sub-agents, /help prints this": "/exit ou /quit termine le dialogue, /session affiche l'id de la session, /skills liste les skills, /NAME ARGS exécute le skill NAME, /agents liste les sous-agents, /help affiche ceci",
		"moteur chat · session %s · model %s":       "moteur chat · session %s · modèle %s",
		" · continued (%d events)":                  " · reprise (%d événements)",
		" · /exit to quit":                          " · /exit pour quitter",
		"moteur: unknown command or skill /%s (%s)": "moteur: commande ou skill /%s inconnu (%s)",
		"moteur: unknown command %s (%s)":           "moteur: commande %s inconnue (%s)",
		"read standard input: %w":                   "lecture de l'entrée standard : %w",
		"moteur: turn interrupted":                  "moteur: tour interrompu",

		// ask
		"Answer a question from the knowledge bases (quick answer)": "Répondre à une question d'après les bases de connaissances (réponse rapide)",
		"Answer a question from the knowledge bases in one retrieval and one generation, citing the passages\nused as [c1], [c2]… and listing them under the answer. With no model configured, the answer quotes\nthe most relevant passages instead (nothing leaves the machine). The exchange is stored as a session\nwith its audit log; --session ID continues it, the question then read in the light of the previous ones.\n\nFor questions that need several searches, reading documents or other tools, use moteur run --kb NAME.": "Répond à une question d'après les bases de connaissances, en une recherche et une génération, en\n" +
			"citant les passages utilisés ([c1], [c2]…) et en les listant sous la réponse. Sans modèle configuré,\n" +
			"la réponse cite plutôt les passages les plus pertinents (rien ne quitte la machine). L'échange est\n" +
			"enregistré comme une session avec son journal d'audit ; --session ID le continue, la question étant\n" +
			"alors lue à la lumière des précédentes.\n\n" +
			"Pour les questions qui demandent plusieurs recherches, la lecture de documents ou d'autres outils,\n" +
			"utilisez moteur run --kb NOM.",
		"knowledge bases to search (repeat or separate with commas; default all)": "bases de connaissances où chercher (à répéter ou séparer par des virgules ; par défaut toutes)",
		"search mode: hybrid, semantic or keyword":                                "mode de recherche : hybrid, semantic ou keyword",
		"continue this session (its previous questions give context)":             "continue cette session (ses questions précédentes donnent le contexte)",
		"answer as the agent `NAME` (by id or name): its model, temperature, max tokens,\nknowledge bases (--kb narrows within them) and prompt": "répond comme l'agent `NAME` (par id ou par nom) : son modèle, sa température, son maximum de tokens,\n" +
			"ses bases de connaissances (--kb restreint parmi elles) et son prompt",

		// the agent flags of run and chat
		"run as the agent `NAME` (built-in or made with moteur agents create; by id or name): its model,\ntemperature, max tokens, access level, tools, knowledge bases and prompt; a quick-answer agent answers as moteur ask does": "s'exécute comme l'agent `NAME` (intégré ou créé avec moteur agents create ; par id ou par nom) : son modèle,\n" +
			"sa température, son maximum de tokens, son niveau d'accès, ses outils, ses bases de connaissances et son prompt ;\n" +
			"un agent de réponse rapide répond comme moteur ask",
		"continue this stored session (an unknown id is an error; --new-session ID starts one under a chosen id, -c the project's latest)": "continue cette session enregistrée (un id inconnu est une erreur ; --new-session ID en commence une sous un id choisi, -c la dernière du projet)",
		"most model rounds in a turn": "nombre maximal d'échanges avec le modèle dans un tour",
		"how long a call waits for the user's answer before it is refused (e.g. 30s, 2h)": "combien de temps un appel attend la réponse de l'utilisateur avant d'être refusé (par ex. 30s, 2h)",
		"access mode for this run: read_only, confirm or auto_write\n(default: the config file's mode; never looser than the organisation policy's min_mode)": "mode d'accès pour cette exécution : read_only, confirm ou auto_write\n" +
			"(par défaut : le mode du fichier de configuration ; jamais plus permissif que le min_mode de la politique de l'organisation)",
		"allow the calls this rule covers without asking, for this run only,\ne.g. --allow 'shell_exec(git status*)' (repeatable; deny rules still win)": "autorise sans demander les appels que couvre cette règle, pour cette exécution seulement,\n" +
			"par ex. --allow 'shell_exec(git status*)' (répétable ; les règles deny l'emportent toujours)",
		"isolation of shell_exec commands: auto (bubblewrap when it works here, else none),\nbwrap (bubblewrap or no shell commands at all) or none (the user's full rights);\nthe restricted and airgapped profiles require bwrap": "isolation des commandes shell_exec : auto (bubblewrap s'il fonctionne ici, sinon none),\n" +
			"bwrap (bubblewrap ou aucune commande shell) ou none (tous les droits de l'utilisateur) ;\n" +
			"les profils restricted et airgapped exigent bwrap",
		"trust the project's .mcp.json and its configuration's hooks as they are now, and remember it, so that they run\n(on a terminal Moteur asks instead; the question comes back whenever the file changes)": "fait confiance au .mcp.json du projet et aux hooks de sa configuration tels qu'ils sont, et s'en souvient, pour\n" +
			"qu'ils s'exécutent (sur un terminal, Moteur pose plutôt la question ; elle revient à chaque modification du fichier)",
		"give the agent the knowledge tools (search_knowledge, read_document, list_documents)\nover these knowledge bases (repeat or separate with commas)": "donne à l'agent les outils de connaissance (search_knowledge, read_document, list_documents)\n" +
			"sur ces bases de connaissances (à répéter ou séparer par des virgules)",
		"invalid --approval-timeout %s: want a positive duration (e.g. 30s, 10m)": "--approval-timeout %s invalide : il faut une durée positive (par ex. 30s, 10m)",
		"invalid --max-iterations %d: want 1 or more":                             "--max-iterations %d invalide : il faut 1 ou plus",
		"invalid --sandbox %q: want auto, bwrap or none":                          "--sandbox %q invalide : il faut auto, bwrap ou none",
		"invalid --mode %q: want read_only, confirm or auto_write":                "--mode %q invalide : il faut read_only, confirm ou auto_write",
		"invalid --allow %q: %v":                                                  "--allow %q invalide : %v",
		"invalid --lang %q: want fr or en":                                        "--lang %q invalide : il faut fr ou en",

		// --session, --continue, --new-session
		"continue the most recent session of this project (the working directory)":                                      "continue la session la plus récente de ce projet (le répertoire de travail)",
		"start a new session under the id `ID` (refused if a session has it already)":                                   "commence une nouvelle session sous l'id `ID` (refusé si une session l'a déjà)",
		"--session, --continue and --new-session exclude one another: give one of them":                                 "--session, --continue et --new-session s'excluent : donnez-en un seul",
		"--new-session %s: a session with this id exists already (continue it with --session %s, or choose another id)": "--new-session %s : une session existe déjà sous cet id (continuez-la avec --session %s, ou choisissez un autre id)",
		"--continue: no session of this project (%s) is stored yet: run without --continue to start one":                "--continue : aucune session de ce projet (%s) n'est encore enregistrée : lancez sans --continue pour en commencer une",
		"--session %s: no session is stored yet (start one under this id with --new-session %s)":                        "--session %s : aucune session n'est encore enregistrée (commencez-en une sous cet id avec --new-session %s)",
		"--session %s: no stored session has this id":                                                                   "--session %s : aucune session enregistrée n'a cet id",
		"; the closest stored: %s": " ; les plus proches enregistrées : %s",
		"%s (moteur sessions list shows them all; --new-session %s starts a new session under this id)": "%s (moteur sessions list les montre toutes ; --new-session %s commence une nouvelle session sous cet id)",
		"project root: %w":     "racine du projet : %w",
		"session %s not found": "session %s introuvable",
		"invalid %s %q":        "%s %q invalide",
		"session id":           "id de session",

		// sessions pending, approve, deny
		"List the permission requests waiting for an answer": "Lister les demandes d'autorisation qui attendent une réponse",
		"List the permission requests that turns are waiting on, in every session (or the one --session\nnames), oldest first: the session, the request's number, the tool, its risk, when it was asked,\nwhether it can still be answered, and what the call does. A request is live while the process\nthat asked runs; stale once that process stopped (\"stale: pid N on host H stopped\"): it can no\nlonger be answered, and the session's next turn withdraws it.\nAnswer a live one with moteur sessions approve ID N or moteur sessions deny ID N.\n\nWith --json, print one JSON array of objects with the keys id, session_id, number, call_id,\ntool, summary, risk, sandboxed, asked_at, live, host and pid.": "Liste les demandes d'autorisation qu'attendent des tours, dans toutes les sessions (ou celle que nomme\n" +
			"--session), les plus anciennes d'abord : la session, le numéro de la demande, l'outil, son risque,\n" +
			"quand elle a été posée, si elle peut encore recevoir une réponse, et ce que fait l'appel. Une demande\n" +
			"est active tant que le processus qui l'a posée tourne ; périmée une fois ce processus arrêté\n" +
			"(« périmée : pid N sur l'hôte H arrêté ») : elle ne peut plus recevoir de réponse, et le tour\n" +
			"suivant de la session la retire.\n" +
			"Répondez à une demande active avec moteur sessions approve ID N ou moteur sessions deny ID N.\n\n" +
			"Avec --json, affiche un tableau JSON d'objets aux clés id, session_id, number, call_id,\n" +
			"tool, summary, risk, sandboxed, asked_at, live, host et pid.",
		"print a JSON array of requests":                                    "affiche un tableau JSON des demandes",
		"list the requests of this session only":                            "liste les demandes de cette session seulement",
		"no pending permission requests":                                    "aucune demande d'autorisation en attente",
		"live":                                                              "active",
		"stale: pid %d on host %s stopped":                                  "périmée : pid %d sur l'hôte %s arrêté",
		"Allow a call that a running turn waits on":                         "Autoriser un appel qu'attend un tour en cours",
		"allow the same call without asking for the rest of the session":    "autorise le même appel sans redemander pour le reste de la session",
		"give the network to this sandboxed shell command (this call only)": "donne le réseau à cette commande shell isolée (cet appel seulement)",
		"Refuse a call that a running turn waits on":                        "Refuser un appel qu'attend un tour en cours",
		"  moteur sessions deny s-20260101T120000-0123456789abcdef 3 --reason \"not that folder\"": "  moteur sessions deny s-20260101T120000-0123456789abcdef 3 --reason \"pas ce dossier\"",
		"why, for the model": "pourquoi, pour le modèle",
		"session %s: permission request %d (%s): --network is only for a shell command run in the sandbox, and this call is not one: there is no network to grant it (approve it without --network)": "session %s : demande d'autorisation %d (%s) : --network ne vaut que pour une commande shell exécutée dans le bac à sable, et cet appel n'en est pas une : il n'y a pas de réseau à lui accorder (autorisez-le sans --network)",
		"permission request %s (%s): %s":                 "demande d'autorisation %s (%s) : %s",
		"permission request %s is not one of session %s": "la demande d'autorisation %s n'appartient pas à la session %s",
		"invalid PERMISSION %q: want the request's number (3) or its id (%s/3), as moteur sessions pending lists them": "PERMISSION %q invalide : il faut le numéro de la demande (3) ou son id (%s/3), tels que moteur sessions pending les liste",
		"session %s has no permission request %d (moteur sessions pending --session %s lists those waiting)":           "la session %s n'a pas de demande d'autorisation %d (moteur sessions pending --session %s liste celles en attente)",
		"session %s: permission request %d (%s)":                           "session %s : demande d'autorisation %d (%s)",
		"%s was already answered (%s) by %s at %s":                         "%s : déjà répondue (%s) par %s à %s",
		": its process stopped":                                            " : son processus s'est arrêté",
		"%s was already withdrawn (%s) at %s: nobody waits for its answer": "%s : déjà retirée (%s) à %s : personne n'attend sa réponse",
		"%s can no longer be answered: the turn that asked is no longer running (pid %d on host %s stopped); the session's next turn withdraws it": "%s : ne peut plus recevoir de réponse : le tour qui l'a posée ne tourne plus (pid %d sur l'hôte %s arrêté) ; le tour suivant de la session la retire",

		// approvals
		"moteur: no answer in time: %s was refused":                "moteur: pas de réponse à temps : %s a été refusé",
		"moteur: permission request %s answered: %s":               "moteur: demande d'autorisation %s répondue : %s",
		"moteur: permission request %s was answered elsewhere: %s": "moteur: demande d'autorisation %s répondue ailleurs : %s",
		"allowed with the network":                                 "autorisé avec le réseau",
		"allowed, and for the rest of the session":                 "autorisé, et pour le reste de la session",
		"allowed":                "autorisé",
		"refused: %s":            "refusé : %s",
		"refused":                "refusé",
		"moteur: %s refused: %s": "moteur: %s refusé : %s",
		"moteur: waiting up to %s for an answer: %s":                                 "moteur: attente d'une réponse, jusqu'à %s : %s",
		"moteur sessions approve %s %s, or moteur sessions deny %s %s --reason TEXT": "moteur sessions approve %s %s, ou moteur sessions deny %s %s --reason TEXTE",
		"no answer: standard input was closed":                                       "pas de réponse : l'entrée standard a été fermée",
		"moteur: answer %s":                                                          "moteur: répondez %s",
		"unknown":                                                                    "inconnu",
		"moteur: permission needed (risk %s): %s":                                    "moteur: autorisation requise (risque %s) : %s",
		"Allow? [y]es / [w]ith network / [n]o / [a]lways for this session / (n: give a reason after a space, e.g. \"n not that folder\") ": "Autoriser ? [y] oui / [w] avec le réseau / [n] non / [a] toujours pour cette session / (n : donnez une raison après une espace, par ex. « n pas ce dossier ») ",
		"Allow? [y]es / [n]o / [a]lways for this session / (n: give a reason after a space, e.g. \"n not that folder\") ":                  "Autoriser ? [y] oui / [n] non / [a] toujours pour cette session / (n : donnez une raison après une espace, par ex. « n pas ce dossier ») ",
		"y (yes), w (yes, with network), n (no; a reason may follow), or a (always for this session)":                                      "y (oui), w (oui, avec le réseau), n (non ; une raison peut suivre), ou a (toujours pour cette session)",
		"y (yes), n (no; a reason may follow), or a (always for this session)":                                                             "y (oui), n (non ; une raison peut suivre), ou a (toujours pour cette session)",
		"no terminal to ask, and the organisation policy %s wants a person to confirm every change: run moteur in a terminal":              "pas de terminal où demander, et la politique de l'organisation %s veut qu'une personne confirme chaque modification : lancez moteur dans un terminal",
		"no terminal to ask: allow it with --allow '%s(PATTERN)'":                                                                          "pas de terminal où demander : autorisez-le avec --allow '%s(MOTIF)'",
		" or --mode auto_write": " ou --mode auto_write",

		// the notes of a turn
		"moteur: MCP server %s is not available: %s":                        "moteur: le serveur MCP %s n'est pas disponible : %s",
		"moteur: using %s (%s)":                                             "moteur: utilise %s (%s)",
		"moteur: session classified: %s — only local providers from now on": "moteur: session classifiée : %s — désormais fournisseurs locaux seulement",
		"  [blocked by a hook, not sent]":                                   "  [bloqué par un hook, non envoyé]",
		"moteur: %s; retrying in %s (attempt %d)":                           "moteur: %s ; nouvel essai dans %s (tentative %d)",
		"not sent: %s": "non envoyé : %s",
		"moteur: context compacted: %d → %d tokens, %d messages trimmed (the summary failed)": "moteur: contexte compacté : %d → %d tokens, %d messages tronqués (le résumé a échoué)",
		"moteur: context compacted: %d → %d tokens, %d messages summarised":                   "moteur: contexte compacté : %d → %d tokens, %d messages résumés",
		"Sources:": "Sources :",

		// demo
		"Try Moteur in one command: sample documents, a question, an answer with its sources": "Essayer Moteur en une commande : des documents d'exemple, une question, une réponse avec ses sources",
		"Ingest the sample documents shipped with Moteur (examples/docs: leave, remote work, expenses, a\nsecurity policy, error codes) into a scratch data directory, answer a sample question from them with\ncitations, and say what to try next. No model and no network are used, and no configuration is read:\nthe scratch directory is removed at the end, and nothing is written to $MOTEUR_HOME.\nProgress goes to standard error, the answer to standard output.": "Ingère les documents d'exemple livrés avec Moteur (examples/docs : congés, télétravail, notes de frais,\n" +
			"une politique de sécurité, des codes d'erreur) dans un répertoire de données provisoire, répond à une\n" +
			"question d'exemple d'après eux avec des citations, et indique quoi essayer ensuite. Aucun modèle ni\n" +
			"réseau n'est utilisé, et aucune configuration n'est lue : le répertoire provisoire est supprimé à la\n" +
			"fin, et rien n'est écrit dans $MOTEUR_HOME.\n" +
			"La progression va sur la sortie d'erreur, la réponse sur la sortie standard.",
		"  go run ./cmd/moteur demo\n  moteur --lang en demo\n  moteur demo --json": "  go run ./cmd/moteur demo\n  moteur --lang en demo\n  moteur demo --json",
		"print the answer's events as JSON lines on stdout, as moteur ask --json":   "affiche les événements de la réponse en lignes JSON sur stdout, comme moteur ask --json",
		"demo: scratch directory: %w":                                          "demo : répertoire provisoire : %w",
		"moteur demo: warning: could not remove %s: %v":                        "moteur demo: attention : impossible de supprimer %s : %v",
		"scratch data directory %s (removed at the end; yours is not touched)": "répertoire de données provisoire %s (supprimé à la fin ; le vôtre n'est pas touché)",
		"demo: %w":                            "demo : %w",
		"demo: copy the sample documents: %w": "demo : copie des documents d'exemple : %w",
		"Moteur's sample documents":           "Les documents d'exemple de Moteur",
		"adding the sample documents (examples/docs) to knowledge base %s…": "ajout des documents d'exemple (examples/docs) à la base de connaissances %s…",
		"warning: sample document %s left out: %s":                          "attention : le document d'exemple %s est laissé de côté : %s",
		"%d documents, %d passages in %s":                                   "%d documents, %d passages en %s",
		"question: %s":                                                      "question : %s",
		`
Moteur answered from its sample documents with no model: each quote cites its source ([c1]…).

Next (in a clone, "go run ./cmd/moteur" stands for "moteur"; "go install ./cmd/moteur" installs it):
  moteur kb create docs && moteur kb add docs ./examples/docs   a base of your own documents
  moteur ask %-50s a question, answered from your bases
  moteur chat                                                   an agent at work on this project (needs a model)
A model writes the answers of ask and works in chat (any OpenAI-compatible server; here Ollama):
  export MOTEUR_BASE_URL=http://localhost:11434/v1 MOTEUR_MODEL=qwen3
`: `
Moteur a répondu d'après ses documents d'exemple, sans modèle : chaque citation renvoie à sa source ([c1]…).

Ensuite (dans un clone, « go run ./cmd/moteur » tient lieu de « moteur » ; « go install ./cmd/moteur » l'installe) :
  moteur kb create docs && moteur kb add docs ./examples/docs   une base de vos propres documents
  moteur ask %-50s une question, répondue d'après vos bases
  moteur chat                                                   un agent au travail sur ce projet (il faut un modèle)
Un modèle rédige les réponses de ask et travaille dans chat (tout serveur compatible OpenAI ; ici Ollama) :
  export MOTEUR_BASE_URL=http://localhost:11434/v1 MOTEUR_MODEL=qwen3
`,
		"reasoning effort of the model for this run, over the agent's: off, auto, minimal, low, medium,\nhigh, xhigh or max (a level the model lacks is adjusted to the nearest it has)": "effort de réflexion du modèle pour cette exécution, au-dessus de celui de l'agent : off, auto, minimal,\nlow, medium, high, xhigh ou max (un niveau que le modèle n'a pas est ramené au plus proche qu'il a)",
	})
}
