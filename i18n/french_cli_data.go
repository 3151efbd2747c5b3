package i18n

// The French of the commands moteur kb, moteur sessions (but approve, deny
// and pending) and moteur audit: their help, messages and errors, and how
// sessions show writes a conversation.
func init() {
	addFrench(map[string]string{
		// moteur kb
		"Create, fill, search and remove knowledge bases": "Créer, remplir, interroger et supprimer des bases de connaissances",
		"Knowledge bases hold your documents (text, Markdown, HTML, PDF, DOCX, CSV, XLSX, JSON, source code,\n" +
			"each also gzip-compressed: notes.md.gz), cut into passages and indexed for keyword search (BM25)\n" +
			"and, when an embedding model is configured (MOTEUR_EMBED_MODEL, or embedding: in the config file),\n" +
			"for semantic search. They live in $MOTEUR_HOME/moteur.db. Ask them questions with moteur ask, or\n" +
			"give an agent their tools with moteur run --kb NAME. moteur demo shows it all on sample documents.": "Les bases de connaissances contiennent vos documents (texte, Markdown, HTML, PDF, DOCX, CSV, XLSX,\n" +
			"JSON, code source, chacun aussi compressé en gzip : notes.md.gz), découpés en passages et indexés\n" +
			"pour la recherche par mots-clés (BM25) et, quand un modèle d'embedding est configuré\n" +
			"(MOTEUR_EMBED_MODEL, ou embedding: dans le fichier de configuration), pour la recherche sémantique.\n" +
			"Elles sont dans $MOTEUR_HOME/moteur.db. Interrogez-les avec moteur ask, ou donnez leurs outils à un\n" +
			"agent avec moteur run --kb NOM. moteur demo montre tout cela sur des documents d'exemple.",
		"Create an empty knowledge base": "Créer une base de connaissances vide",
		"Create an empty knowledge base. Documents are cut into passages of at most --chunk-size characters\n" +
			"(default 1000), each repeating the last --chunk-overlap characters of the previous one when a\n" +
			"paragraph had to be split (default 100). With an embedding model configured the base also gets\n" +
			"vectors, unless --no-vectors.": "Créer une base de connaissances vide. Les documents sont découpés en passages d'au plus\n" +
			"--chunk-size caractères (1000 par défaut), chacun reprenant les --chunk-overlap derniers caractères\n" +
			"du précédent quand un paragraphe a dû être coupé (100 par défaut). Avec un modèle d'embedding\n" +
			"configuré, la base a aussi des vecteurs, sauf avec --no-vectors.",
		"Created knowledge base %s (%s). Add documents with: moteur kb add %s PATH...": "Base de connaissances %s créée (%s). Ajoutez des documents avec : moteur kb add %s CHEMIN...",
		"what the base holds": "ce que contient la base",
		"keyword analysis: snowball (each document stemmed in its own language), moteur (accents, case, stop words, light stemming, FR+EN) or raw (SQLite's own)": "analyse des mots-clés : snowball (chaque document racinisé dans sa langue), moteur (accents, casse, mots vides, racinisation légère, FR+EN) ou raw (celle de SQLite)",
		"no semantic index even when an embedding model is configured":                                                                                            "pas d'index sémantique, même quand un modèle d'embedding est configuré",
		"passage size in characters (default 1000)":                                                                                                               "taille des passages en caractères (1000 par défaut)",
		"overlap in characters (default 100)":                                                                                                                     "recouvrement en caractères (100 par défaut)",
		"print the new base as JSON":                                                                                                                              "afficher la nouvelle base en JSON",
		"List the knowledge bases":                                                                                                                                "Lister les bases de connaissances",
		"No knowledge base yet. Create one with: moteur kb create NAME":                                                                                           "Aucune base de connaissances pour l'instant. Créez-en une avec : moteur kb create NOM",
		"print the bases as a JSON array":                                                                                                                         "afficher les bases en tableau JSON",
		"Remove a knowledge base, or some of its documents (the files themselves are not touched)":                                                                "Supprimer une base de connaissances, ou certains de ses documents (les fichiers eux-mêmes restent intacts)",
		"With NAME alone, remove the knowledge base and everything indexed in it: on a terminal you confirm,\n" +
			"seeing how many documents and passages go; otherwise --yes is required. With files, remove only\n" +
			"those documents from it (as they were added: a path, relative to the working directory or absolute).": "Avec NOM seul, supprimer la base de connaissances et tout ce qui y est indexé : sur un terminal,\n" +
			"vous confirmez en voyant combien de documents et de passages partent ; sinon --yes est requis.\n" +
			"Avec des fichiers, n'en retirer que ces documents (tels qu'ils ont été ajoutés : un chemin, relatif\n" +
			"au répertoire de travail ou absolu).",
		"remove the whole base without asking": "supprimer toute la base sans demander",
		"knowledge base %s (%s, %s)":           "la base de connaissances %s (%s, %s)",
		"1 document":                           "1 document",
		"%d documents":                         "%d documents",
		"1 passage":                            "1 passage",
		"%d passages":                          "%d passages",
		"kb rm would remove %s: pass --yes when standard input is not a terminal": "kb rm supprimerait %s : passez --yes quand l'entrée standard n'est pas un terminal",
		"Remove %s? The files themselves are not touched. [y/N] ":                 "Supprimer %s ? Les fichiers eux-mêmes restent intacts. [o/N] ",
		"knowledge base %s not removed":                                           "base de connaissances %s non supprimée",
		"Removed knowledge base %s.":                                              "Base de connaissances %s supprimée.",
		"Removed %s from %s.":                                                     "%s retiré de %s.",
		"not in knowledge base %s: %s":                                            "absent de la base de connaissances %s : %s",

		// moteur kb add
		"Add files and folders to a knowledge base": "Ajouter des fichiers et des dossiers à une base de connaissances",
		"Add files and folders (recursively, hidden entries skipped) to a knowledge base. A file already\n" +
			"there with the same content is skipped; a changed one replaces its old version at once (a search\n" +
			"never sees half of a document). A file that cannot be read is reported with its reason and the\n" +
			"others go on. A gzip-compressed text file (notes.md.gz, page.html.gz…) is read as its content.\n" +
			"The speed shown counts the bytes of the files added or updated, not those skipped or refused.\n" +
			"Exit status 1 when any file failed, or when the paths hold no file at all.": "Ajouter des fichiers et des dossiers (récursivement, entrées cachées ignorées) à une base de\n" +
			"connaissances. Un fichier déjà présent avec le même contenu est ignoré ; un fichier modifié remplace\n" +
			"d'un coup son ancienne version (une recherche ne voit jamais la moitié d'un document). Un fichier\n" +
			"illisible est signalé avec la raison, et les autres continuent. Un fichier texte compressé en gzip\n" +
			"(notes.md.gz, page.html.gz…) est lu comme son contenu. La vitesse affichée compte les octets des\n" +
			"fichiers ajoutés ou mis à jour, pas ceux ignorés ou refusés.\n" +
			"Code de sortie 1 quand un fichier a échoué, ou quand les chemins ne contiennent aucun fichier.",
		"%d file(s) could not be added":      "échec de l'ajout de %d fichier(s)",
		"print the ingestion report as JSON": "afficher le rapport d'ingestion en JSON",
		"%s: %d added, %d updated, %d unchanged, %d failed · %d passages · %s ingested in %s (%s)": "%s : %d ajouté(s), %d mis à jour, %d inchangé(s), %d en échec · %d passages · %s ingérés en %s (%s)",
		"  failed  %s: %s": "  échec   %s : %s",
		"  warning %s: %s": "  alerte  %s : %s",
		"no file to add to %s: %s holds no file (hidden files and folders are skipped)": "aucun fichier à ajouter à %s : %s ne contient aucun fichier (les fichiers et dossiers cachés sont ignorés)",
		"no file to add to %s: %s hold no file (hidden files and folders are skipped)":  "aucun fichier à ajouter à %s : %s ne contiennent aucun fichier (les fichiers et dossiers cachés sont ignorés)",
		"%s %d/%d files · %d passages · %s · %s":                                        "%s %d/%d fichiers · %d passages · %s · %s",

		// moteur kb eval
		"Measure retrieval quality on a test set in the BEIR layout": "Mesurer la qualité de la recherche sur un jeu de test au format BEIR",
		"Index DIR/corpus.jsonl (_id, title, text) in a temporary knowledge base, run DIR/queries.jsonl\n" +
			"(_id, text) in every search mode available (keyword; semantic and hybrid with an embedding model),\n" +
			"and print nDCG@10, recall@10 and MRR@10 against DIR/qrels/test.tsv (query-id, corpus-id, score),\n" +
			"with SQLite FTS5's plain bm25() over the same corpus as a baseline. Nothing is kept.": "Indexer DIR/corpus.jsonl (_id, title, text) dans une base de connaissances temporaire, lancer\n" +
			"DIR/queries.jsonl (_id, text) dans chaque mode de recherche disponible (keyword ; semantic et hybrid\n" +
			"avec un modèle d'embedding), et afficher nDCG@10, recall@10 et MRR@10 par rapport à\n" +
			"DIR/qrels/test.tsv (query-id, corpus-id, score), avec le simple bm25() de FTS5 de SQLite sur le même\n" +
			"corpus comme référence. Rien n'est conservé.",
		"indexing":                 "indexation",
		"%d documents, %d queries": "%d documents, %d requêtes",
		"print the scores as JSON": "afficher les scores en JSON",

		// moteur kb search
		"Search a knowledge base as the agent's search_knowledge does": "Interroger une base de connaissances comme le fait search_knowledge de l'agent",
		"Search a knowledge base (NAME, or several separated by commas) and print the passages found, best first.\n" +
			"Modes: hybrid (default: vectors and keywords fused), semantic, keyword (exact terms, codes, identifiers).": "Interroger une base de connaissances (NOM, ou plusieurs séparées par des virgules) et afficher les\n" +
			"passages trouvés, les meilleurs d'abord. Modes : hybrid (par défaut : vecteurs et mots-clés fusionnés),\n" +
			"semantic, keyword (termes exacts, codes, identifiants).",
		"empty query":                                 "requête vide",
		"hybrid, semantic or keyword":                 "hybrid, semantic ou keyword",
		"number of passages (default 10, at most 30)": "nombre de passages (10 par défaut, 30 au plus)",
		"print the result as JSON (hits, requested_mode, mode_fallbacks…)": "afficher le résultat en JSON (hits, requested_mode, mode_fallbacks…)",
		"note: %s searched in %s mode instead of %s: %s":                   "remarque : %s interrogée en mode %s au lieu de %s : %s",
		"No passage found.": "Aucun passage trouvé.",

		// moteur sessions
		"List, show, follow, fork, rewind and remove stored sessions, and answer their requests": "Lister, afficher, suivre, copier, rembobiner et supprimer les sessions enregistrées, et répondre à leurs demandes",
		"Sessions are stored in $MOTEUR_HOME/moteur.db. Continue one with moteur run --session ID or\n" +
			"moteur chat --session ID. Put its files or its conversation back to an earlier message with\n" +
			"moteur sessions points ID, then moteur sessions rewind ID --to SEQ.\n\n" +
			"Watch a session's turns from another terminal with moteur sessions follow ID. The permission\n" +
			"requests turns wait on are listed by moteur sessions pending and answered, from any terminal,\n" +
			"with moteur sessions approve ID N or moteur sessions deny ID N.": "Les sessions sont enregistrées dans $MOTEUR_HOME/moteur.db. Reprenez-en une avec\n" +
			"moteur run --session ID ou moteur chat --session ID. Ramenez ses fichiers ou sa conversation à un\n" +
			"message antérieur avec moteur sessions points ID, puis moteur sessions rewind ID --to SEQ.\n\n" +
			"Suivez les tours d'une session depuis un autre terminal avec moteur sessions follow ID. Les\n" +
			"demandes d'autorisation qu'attendent les tours sont listées par moteur sessions pending et se\n" +
			"répondent, depuis n'importe quel terminal, avec moteur sessions approve ID N ou\n" +
			"moteur sessions deny ID N.",
		"List the sessions of this project, most recent first":                  "Lister les sessions de ce projet, les plus récentes d'abord",
		"print a JSON array of sessions":                                        "afficher un tableau JSON des sessions",
		"most sessions to list (0: all)":                                        "nombre maximal de sessions à lister (0 : toutes)",
		"list the sessions of every project, not only of the current directory": "lister les sessions de tous les projets, pas seulement du répertoire courant",
		"invalid --limit %d: want 0 (all) or more":                              "--limit %d invalide : 0 (toutes) ou plus attendu",
		"no sessions": "aucune session",
		"no sessions in %s (--all lists those of every project)": "aucune session dans %s (--all liste celles de tous les projets)",
		"(the %d most recent; --limit 0 lists all)":              "(les %d plus récentes ; --limit 0 les liste toutes)",
		"[fork of %s at %d] %s":                                  "[copie de %s au seq %d] %s",
		"just now":                                               "à l'instant",
		"%d min ago":                                             "il y a %d min",
		"%d h ago":                                               "il y a %d h",
		"%d days ago":                                            "il y a %d jours",
		"Show a session's conversation and tool calls":           "Afficher la conversation d'une session et ses appels d'outils",
		"Show a stored session as a conversation: the user's messages (›), the answers, each tool call (→)\n" +
			"and its result (✓ or ✗), the end of each turn and the errors. With --json, print its stored\n" +
			"events as JSON lines instead, exactly as stored.": "Afficher une session enregistrée comme une conversation : les messages de l'utilisateur (›), les\n" +
			"réponses, chaque appel d'outil (→) et son résultat (✓ ou ✗), la fin de chaque tour et les erreurs.\n" +
			"Avec --json, afficher plutôt ses événements en lignes JSON, exactement tels qu'enregistrés.",
		"print the stored events, one JSON object per line": "afficher les événements enregistrés, un objet JSON par ligne",
		"session %s: encode event %d: %w":                   "session %s : encodage de l'événement %d : %w",
		"Copy a session up to an event into a new session":  "Copier une session jusqu'à un événement dans une nouvelle session",
		"Copy the events of session ID up to seq SEQ (see sessions show --json) into a new session and\n" +
			"print its id; continue it with moteur run --session NEWID. The new session's audit log starts\n" +
			"with its first new event: the copied history is in the audit log of ID.": "Copier les événements de la session ID jusqu'au seq SEQ (voir sessions show --json) dans une\n" +
			"nouvelle session et afficher son id ; reprenez-la avec moteur run --session NOUVELID. Le journal\n" +
			"d'audit de la nouvelle session commence à son premier nouvel événement : l'historique copié est\n" +
			"dans le journal d'audit de ID.",
		"sessions fork needs --at SEQ: the last event to copy": "sessions fork demande --at SEQ : le dernier événement à copier",
		"seq of the last event to copy (1 or more)":            "seq du dernier événement à copier (1 ou plus)",
		"id of the new session (default: a new one)":           "id de la nouvelle session (par défaut : un nouvel id)",
		"print the new session as a JSON object":               "afficher la nouvelle session en objet JSON",
		"invalid --at 0: seqs start at 1":                      "--at 0 invalide : les seq commencent à 1",
		"session %s already exists: choose another --id":       "la session %s existe déjà : choisissez un autre --id",
		"Remove a session (its audit log is kept)":             "Supprimer une session (son journal d'audit est conservé)",
		"Remove a session from the store, with its transcript. Its audit log ($MOTEUR_HOME/audit/ID.jsonl)\n" +
			"is kept: it is the proof of what the agent did, and moteur never deletes it.\n" +
			"A session in use by a running process is not removed. Asks for confirmation on a terminal;\n" +
			"otherwise --yes is required.": "Supprimer une session du stockage, avec sa transcription. Son journal d'audit\n" +
			"($MOTEUR_HOME/audit/ID.jsonl) est conservé : c'est la preuve de ce qu'a fait l'agent, et moteur ne\n" +
			"le supprime jamais. Une session utilisée par un processus en cours n'est pas supprimée. Demande\n" +
			"confirmation sur un terminal ; sinon --yes est requis.",
		"remove without asking": "supprimer sans demander",
		"sessions rm asks for confirmation: pass --yes when standard input is not a terminal": "sessions rm demande confirmation : passez --yes quand l'entrée standard n'est pas un terminal",
		"Remove session %s (%d events, %q)? Its audit log %s is kept. [y/N] ":                 "Supprimer la session %s (%d événement(s), %q) ? Son journal d'audit %s est conservé. [o/N] ",
		"session %s not removed":                         "session %s non supprimée",
		"session %s removed, but not its transcript: %w": "session %s supprimée, mais pas sa transcription : %w",
		"no audit log":                                   "aucun journal d'audit",
		"audit log kept: %s":                             "journal d'audit conservé : %s",
		"removed session %s (%s)":                        "session %s supprimée (%s)",

		// moteur sessions points, rewind
		"List the points a session can be rewound to, newest first": "Lister les points auxquels une session peut être rembobinée, les plus récents d'abord",
		"List the rewind points of a stored session, newest first: each message the user sent (SEQ), when,\n" +
			"and its first line. moteur sessions rewind ID --to SEQ puts the files, the conversation or both\n" +
			"back to what they were when that message was sent.": "Lister les points de retour d'une session enregistrée, les plus récents d'abord : chaque message\n" +
			"envoyé par l'utilisateur (SEQ), sa date et sa première ligne. moteur sessions rewind ID --to SEQ\n" +
			"remet les fichiers, la conversation ou les deux dans l'état où ils étaient à l'envoi de ce message.",
		"print a JSON array of points (seq, prompt, time)":                                              "afficher un tableau JSON des points (seq, prompt, time)",
		"session %s has no rewind points: it has no message yet":                                        "la session %s n'a aucun point de retour : elle n'a encore aucun message",
		"(the conversation was compacted at seq %d: the points before it rewind with --mode code only)": "(la conversation a été compactée au seq %d : les points antérieurs ne se rembobinent qu'avec --mode code)",
		"Put a session's files or conversation back to a rewind point":                                  "Ramener les fichiers ou la conversation d'une session à un point de retour",
		"Put session ID back to the point SEQ, the message the user sent at that seq (see moteur sessions\n" +
			"points ID):\n" +
			"  --mode code          the files the agent changed since go back to their content then (files it\n" +
			"                       created are deleted); the conversation goes on, and the agent is told with\n" +
			"                       the next message\n" +
			"  --mode conversation  the conversation goes back to before that message; the files stay as they are\n" +
			"  --mode both          both\n\n" +
			"The plan is shown first: each file, ok or in conflict (changed since this session last wrote it,\n" +
			"by you, another session or a shell command), and the calls whose effects no rewind can undo (shell\n" +
			"commands). A conflict is left alone unless --overwrite names it. On a terminal you confirm the plan;\n" +
			"otherwise --yes is required (without it the plan is shown, and nothing done). --dry-run shows the\n" +
			"plan and stops there, on a terminal or not (with --json, as the JSON object without its result).\n" +
			"Exactly the plan shown is carried out: a file that changes in between is left alone and reported\n" +
			"failed. What a rewind replaces is kept too, so a rewind can be rewound.\n" +
			"The session must not be in use by another process. No model is called.\n\n" +
			"Exit status: 0 when every file was restored or left alone by choice, 1 when one could not be restored\n" +
			"or on an error, 2 on bad usage.": "Ramener la session ID au point SEQ, le message envoyé par l'utilisateur à ce seq (voir\n" +
			"moteur sessions points ID) :\n" +
			"  --mode code          les fichiers modifiés depuis par l'agent reprennent leur contenu d'alors (ceux\n" +
			"                       qu'il a créés sont supprimés) ; la conversation continue, et l'agent en est\n" +
			"                       informé au message suivant\n" +
			"  --mode conversation  la conversation revient à avant ce message ; les fichiers restent tels quels\n" +
			"  --mode both          les deux\n\n" +
			"Le plan s'affiche d'abord : chaque fichier, ok ou en conflit (modifié depuis la dernière écriture de\n" +
			"cette session, par vous, une autre session ou une commande shell), et les appels dont aucun retour\n" +
			"ne peut défaire les effets (commandes shell). Un conflit est laissé tel quel sauf si --overwrite le\n" +
			"nomme. Sur un terminal, vous confirmez le plan ; sinon --yes est requis (sans lui, le plan est\n" +
			"affiché et rien n'est fait). --dry-run affiche le plan et s'arrête là, sur un terminal ou non (avec\n" +
			"--json, en objet JSON sans son résultat). C'est exactement le plan affiché qui est exécuté : un\n" +
			"fichier modifié entre-temps est laissé tel quel et signalé en échec. Ce qu'un retour remplace est\n" +
			"conservé aussi, si bien qu'un retour peut lui-même être annulé.\n" +
			"La session ne doit pas être utilisée par un autre processus. Aucun modèle n'est appelé.\n\n" +
			"Code de sortie : 0 quand chaque fichier a été restauré ou laissé tel quel par choix ; 1 quand l'un\n" +
			"n'a pas pu être restauré, ou en cas d'erreur ; 2 en cas de mauvaise utilisation.",
		"sessions rewind needs --to SEQ: a rewind point (moteur sessions points %s lists them)": "sessions rewind demande --to SEQ : un point de retour (moteur sessions points %s les liste)",
		"sessions rewind needs --mode code, conversation or both":                               "sessions rewind demande --mode code, conversation ou both",
		"seq of the rewind point (see moteur sessions points ID)":                               "seq du point de retour (voir moteur sessions points ID)",
		"what goes back: code (the files), conversation, or both":                               "ce qui revient en arrière : code (les fichiers), conversation, ou both (les deux)",
		"rewind without asking": "rembobiner sans demander",
		"restore this file even though it changed since the agent wrote it (repeatable)":                                                                    "restaurer ce fichier même s'il a changé depuis que l'agent l'a écrit (répétable)",
		"print the plan and the result as one JSON object":                                                                                                  "afficher le plan et le résultat en un seul objet JSON",
		"show the plan (what would be restored or deleted, the conflicts) and change nothing":                                                               "afficher le plan (ce qui serait restauré ou supprimé, les conflits) sans rien changer",
		"invalid --mode %q: want code, conversation or both":                                                                                                "--mode %q invalide : code, conversation ou both attendu",
		"invalid --to 0: seqs start at 1 (moteur sessions points %s lists the rewind points)":                                                               "--to 0 invalide : les seq commencent à 1 (moteur sessions points %s liste les points de retour)",
		"--overwrite is for --mode code or both: --mode conversation leaves the files as they are":                                                          "--overwrite sert à --mode code ou both : --mode conversation laisse les fichiers tels quels",
		"the conversation of session %s cannot be rewound to seq %d: it was compacted at seq %d since; --mode code puts the files back alone":               "la conversation de la session %s ne peut pas revenir au seq %d : elle a été compactée depuis, au seq %d ; --mode code ramène les fichiers seuls",
		"sessions rewind asks for confirmation: pass --yes when standard input is not a terminal (the plan above is what it would do; nothing was changed)": "sessions rewind demande confirmation : passez --yes quand l'entrée standard n'est pas un terminal (le plan ci-dessus est ce qu'il ferait ; rien n'a été modifié)",
		"Rewind? [y/N] ": "Rembobiner ? [o/N] ",
		"session %s not rewound: nothing changed": "session %s non rembobinée : rien n'a changé",
		"the conversation of session %s cannot be rewound to seq %d: it was compacted since; --mode code puts the files back alone": "la conversation de la session %s ne peut pas revenir au seq %d : elle a été compactée depuis ; --mode code ramène les fichiers seuls",
		"session %s: the files were rewound, but the rewind could not be recorded: %w":                                              "session %s : les fichiers ont été ramenés, mais le retour n'a pas pu être enregistré : %w",
		"session %s rewound to seq %d, but %s could not be restored (see above)":                                                    "session %s ramenée au seq %d, mais restauration impossible pour %s (voir ci-dessus)",
		"1 file":   "1 fichier",
		"%d files": "%d fichiers",
		"moteur: dry run: nothing was changed (run it again without --dry-run to rewind)":                            "moteur: essai à blanc : rien n'a été modifié (relancez sans --dry-run pour rembobiner)",
		"seq %d of session %s is not a rewind point (a message the user sent): moteur sessions points %s lists them": "le seq %d de la session %s n'est pas un point de retour (un message envoyé par l'utilisateur) : moteur sessions points %s les liste",
		"--overwrite %s is outside the project %s":                                                                   "--overwrite %s est hors du projet %s",
		"it has no conflict":                              "il n'a aucun conflit",
		"its conflicts: %s":                               "ses conflits : %s",
		"--overwrite %s: not a file of this rewind (%s)":  "--overwrite %s : pas un fichier de ce retour (%s)",
		"Rewind of session %s to seq %d (%s), project %s": "Retour de la session %s au seq %d (%s), projet %s",
		"the conversation goes back to before: %s":        "la conversation revient à avant : %s",
		"the files stay as they are":                      "les fichiers restent tels quels",
		"no file to put back: the files this session changed are as they were at seq %d": "aucun fichier à ramener : les fichiers modifiés par cette session sont tels qu'au seq %d",
		"the files (%d):": "les fichiers (%d) :",
		"%s at seq %d":    "%s au seq %d",
		" (destructive)":  " (destructif)",
		"warning: %s since seq %d cannot be undone (a rewind leaves their effects): %s": "attention : impossible de défaire %s depuis le seq %d (un retour en laisse les effets) : %s",
		"1 call":   "1 appel",
		"%d calls": "%d appels",
		"delete it (it did not exist at the point)":                                       "le supprimer (il n'existait pas à ce point)",
		"restore its content at the point":                                                "restaurer son contenu à ce point",
		"%s: left alone":                                                                  "%s : laissé tel quel",
		"%s; --overwrite: delete it (it did not exist at the point)":                      "%s ; --overwrite : le supprimer (il n'existait pas à ce point)",
		"%s; --overwrite: restore its content at the point":                               "%s ; --overwrite : restaurer son contenu à ce point",
		"%s: left alone (--overwrite %s would delete it (it did not exist at the point))": "%s : laissé tel quel (--overwrite %s le supprimerait (il n'existait pas à ce point))",
		"%s: left alone (--overwrite %s would restore its content at the point)":          "%s : laissé tel quel (--overwrite %s restaurerait son contenu à ce point)",
		"could not be read: %s":                                                           "illisible : %s",
		"deleted since this session wrote it":                                             "supprimé depuis que cette session l'a écrit",
		"this session deleted it, and it exists again":                                    "cette session l'a supprimé, et il existe de nouveau",
		"changed since this session last wrote it":                                        "modifié depuis la dernière écriture de cette session",
		"restored": "restauré",
		"deleted":  "supprimé",
		"left alone: %s (--overwrite %s restores it)":                         "laissé tel quel : %s (--overwrite %s le restaure)",
		"not restored: %s":                                                    "non restauré : %s",
		"the conversation is back before: %s":                                 "la conversation est revenue à avant : %s",
		"the conversation goes on; with the next message the agent reads: %s": "la conversation continue ; avec le message suivant, l'agent lit : %s",

		// moteur audit
		"Check the audit logs": "Vérifier les journaux d'audit",
		"Verify audit logs against the at-rest key and the session store": "Vérifier les journaux d'audit avec la clé de chiffrement au repos et le stockage des sessions",
		"Verify the audit log of each SESSION (an id) or FILE (a path: it ends in .jsonl or holds a '/'), or with\n" +
			"none every session of $MOTEUR_HOME and every log in $MOTEUR_HOME/audit. Each record must chain to the one\n" +
			"before it, carry the MAC of the at-rest key, and the log must hold one record per stored event, each with\n" +
			"the MAC the store recorded with that event: a record changed, removed, inserted or forged, a log cut\n" +
			"short, emptied, rolled back to an older copy, rewritten without the key, or missing, is found.\n" +
			"Prints one line per log:\n" +
			"  ok N records  PATH              sound and authenticated (a note may follow)\n" +
			"  unkeyed N records  PATH: …     an earlier version's log: its integrity checked, not its authenticity\n" +
			"  unverified N records  PATH: …  sound as far as it could be checked without the at-rest key\n" +
			"  broken PATH: record I (line L): why   the first bad record (or the first one missing)\n" +
			"  missing PATH: …                a session with stored events and no audit log\n" +
			"  unreadable PATH: …\n" +
			"With --json, one JSON object per log instead (path, session_id, status, records, events, first_index,\n" +
			"unkeyed_records, authenticated, stored, bad_record {index, line, reason}, notes, error).\n\n" +
			"The MACs need the at-rest key (never created here); without it, what can be is checked and the\n" +
			"command fails, naming the key file.\n\n" +
			"A session being run meanwhile can show one record more than its store: verify it once it stops.\n\n" +
			"Exit status: 0 when every log is ok or unkeyed; 1 when one is not, or when the at-rest key is needed and\n" +
			"cannot be loaded; 2 on bad usage.": "Vérifier le journal d'audit de chaque SESSION (un id) ou FICHIER (un chemin : il finit par .jsonl ou\n" +
			"contient un « / »), ou, sans argument, de chaque session de $MOTEUR_HOME et de chaque journal de\n" +
			"$MOTEUR_HOME/audit. Chaque enregistrement doit s'enchaîner au précédent et porter le MAC de la clé au\n" +
			"repos, et le journal doit contenir un enregistrement par événement stocké, chacun avec le MAC que le\n" +
			"stockage a noté avec cet événement : un enregistrement modifié, supprimé, inséré ou forgé, un journal\n" +
			"tronqué, vidé, ramené à une copie plus ancienne, réécrit sans la clé, ou manquant, est détecté.\n" +
			"Affiche une ligne par journal :\n" +
			"  ok N enregistrements  CHEMIN              sain et authentifié (une remarque peut suivre)\n" +
			"  unkeyed N enregistrements  CHEMIN : …     journal d'une version antérieure : intégrité vérifiée,\n" +
			"                                            pas son authenticité\n" +
			"  unverified N enregistrements  CHEMIN : …  sain autant qu'on a pu le vérifier sans la clé au repos\n" +
			"  broken CHEMIN : enregistrement I (ligne L) : raison   le premier enregistrement fautif (ou le\n" +
			"                                            premier manquant)\n" +
			"  missing CHEMIN : …                        une session avec des événements stockés et sans journal\n" +
			"  unreadable CHEMIN : …\n" +
			"Avec --json, un objet JSON par journal à la place (path, session_id, status, records, events,\n" +
			"first_index, unkeyed_records, authenticated, stored, bad_record {index, line, reason}, notes, error).\n\n" +
			"Les MAC demandent la clé au repos (jamais créée ici) ; sans elle, ce qui peut l'être est vérifié et\n" +
			"la commande échoue en nommant le fichier de la clé.\n\n" +
			"Une session en cours d'exécution peut montrer un enregistrement de plus que son stockage :\n" +
			"vérifiez-la une fois arrêtée.\n\n" +
			"Code de sortie : 0 quand chaque journal est ok ou unkeyed ; 1 quand l'un ne l'est pas, ou quand la\n" +
			"clé au repos est nécessaire et ne peut être chargée ; 2 en cas de mauvaise utilisation.",
		"one JSON object per log": "un objet JSON par journal",
		"Set aside the torn last record of an audit log so its session can continue": "Mettre de côté le dernier enregistrement déchiré d'un journal d'audit pour que sa session puisse continuer",
		"A power loss in the middle of a write can leave an audit log whose last line is incomplete; such a\n" +
			"log is not continued. repair moves that incomplete line to FILE.torn-TIME, kept as evidence, and cuts\n" +
			"the log after its last complete record. Everything before must verify, with the at-rest key and against\n" +
			"the session store: a chain broken elsewhere is refused, since that is evidence of a change, not damage.\n" +
			"A log with no torn record is verified all the same: one that fails is reported tampered, at the record,\n" +
			"line and seq of its first bad record, and left exactly as it is.\n\n" +
			"Exit status: 0 when the log was repaired; 1 when there was nothing to repair, or it is tampered, or on an error.": "Une coupure de courant au milieu d'une écriture peut laisser un journal d'audit dont la dernière\n" +
			"ligne est incomplète ; un tel journal n'est pas poursuivi. repair déplace cette ligne incomplète dans\n" +
			"FICHIER.torn-DATE, gardé comme preuve, et coupe le journal après son dernier enregistrement complet.\n" +
			"Tout ce qui précède doit se vérifier, avec la clé au repos et par rapport au stockage des sessions :\n" +
			"une chaîne rompue ailleurs est refusée, car c'est la preuve d'une modification, pas d'un dommage.\n" +
			"Un journal sans enregistrement déchiré est vérifié tout de même : s'il échoue, il est signalé\n" +
			"falsifié, avec l'enregistrement, la ligne et le seq de son premier enregistrement fautif, et laissé\n" +
			"exactement tel quel.\n\n" +
			"Code de sortie : 0 quand le journal a été réparé ; 1 quand il n'y avait rien à réparer, qu'il est\n" +
			"falsifié, ou en cas d'erreur.",
		"after the repair: %w": "après la réparation : %w",
		"wrote the record of seq %d again from the store, which holds its event and its MAC": "enregistrement du seq %d réécrit à partir du stockage, qui contient son événement et son MAC",
		"set the torn record aside in %s":    "enregistrement déchiré mis de côté dans %s",
		": %s":                               " : %s",
		"%s %d records  %s%s":                "%s %d enregistrements  %s%s",
		"broken %s: record %d: %s":           "broken %s : enregistrement %d : %s",
		"broken %s: record %d (line %d): %s": "broken %s : enregistrement %d (ligne %d) : %s",
		"%s %s: %s":                          "%s %s : %s",
		"no audit logs in %s":                "aucun journal d'audit dans %s",
		"%d of %d audit logs failed verification; their MACs were not checked: %w":                                                  "vérification échouée pour %d des %d journaux d'audit ; leurs MAC n'ont pas été vérifiés : %w",
		"%d of %d audit logs failed verification":                                                                                   "vérification échouée pour %d des %d journaux d'audit",
		"the audit logs were not authenticated: %w":                                                                                 "les journaux d'audit n'ont pas été authentifiés : %w",
		"list audit logs: %w":                                                                                                       "liste des journaux d'audit : %w",
		"session %s has %d stored events but no audit log (deleted or moved)":                                                       "la session %s a %d événements stockés mais aucun journal d'audit (supprimé ou déplacé)",
		"no audit log, and no session %s in the store":                                                                              "aucun journal d'audit, et aucune session %s dans le stockage",
		"no log yet: a fork of %s with no event of its own":                                                                         "pas encore de journal : une copie de %s sans événement propre",
		"session %s is not in the store (removed?): its record count and heads not compared":                                        "la session %s n'est pas dans le stockage (supprimée ?) : nombre d'enregistrements et têtes non comparés",
		"an empty log, of no stored session":                                                                                        "un journal vide, d'aucune session stockée",
		"unkeyed log of an earlier version: integrity checked, not authenticity (no MAC, no heads in the store)":                    "journal sans clé d'une version antérieure : intégrité vérifiée, pas l'authenticité (pas de MAC, pas de têtes dans le stockage)",
		"MACs not checked without the at-rest key":                                                                                  "MAC non vérifiés sans la clé au repos",
		"records %d to %d are unkeyed, of an earlier version: authenticated as they were when record %d chained onto them":          "les enregistrements %d à %d sont sans clé, d'une version antérieure : authentifiés tels qu'ils étaient quand l'enregistrement %d s'y est enchaîné",
		"its first %d events, copied from %s, are of an earlier version: not linked to %s":                                          "ses %d premiers événements, copiés de %s, sont d'une version antérieure : non reliés à %s",
		"the fork's first %d events are in the log of %s, which cannot be read: %v":                                                 "les %d premiers événements de la copie sont dans le journal de %s, illisible : %v",
		"the fork's first %d events are in %s: %v":                                                                                  "les %d premiers événements de la copie sont dans %s : %v",
		"the head the fork copied for seq %d is not the mac of that record in %s: the source's log or the fork's store was changed": "la tête copiée par la copie pour le seq %d n'est pas le MAC de cet enregistrement dans %s : le journal de la source ou le stockage de la copie a été modifié",
		"its first %d events are in %s":                                                                                             "ses %d premiers événements sont dans %s",

		// moteur sessions show
		"no result recorded: the call is still running, or its process stopped before it finished": "aucun résultat enregistré : l'appel est encore en cours, ou son processus s'est arrêté avant la fin",
		"(no message)":                       "(aucun message)",
		"session %s · %s":                    "session %s · %s",
		"project %s":                         "projet %s",
		"1 event":                            "1 événement",
		"%d events":                          "%d événements",
		"created %s":                         "créée %s",
		"updated %s":                         "modifiée %s",
		"forked from %s at seq %d":           "copiée de %s au seq %d",
		"· started: model %s (%s), tools %s": "· démarrée : modèle %s (%s), outils %s",
		"no result recorded: the process stopped before the call finished": "aucun résultat enregistré : le processus s'est arrêté avant la fin de l'appel",
		"  [written by moteur]":              "  [écrit par moteur]",
		"  [truncated]":                      "  [tronqué]",
		"· turn ended: %s (%s, %s)":          "· tour terminé : %s (%s, %s)",
		"1 round":                            "1 itération",
		"%d rounds":                          "%d itérations",
		"1 request":                          "1 requête",
		"%d requests":                        "%d requêtes",
		"✗ error (%s): %s":                   "✗ erreur (%s) : %s",
		"· retry %d: %s":                     "· nouvel essai %d : %s",
		"? permission asked for %s (%s): %s": "? autorisation demandée pour %s (%s) : %s",
		"· context compacted: %d messages summarised (%d → %d tokens)": "· contexte compacté : %d messages résumés (%d → %d tokens)",
		"· session classified: %s (%s)":                                "· session classifiée : %s (%s)",
		"· provider: %s, model %s (%s)":                                "· fournisseur : %s, modèle %s (%s)",
		"· MCP server %s down: %s":                                     "· serveur MCP %s indisponible : %s",
		"· hook %s (%s): exit %d":                                      "· hook %s (%s) : code de sortie %d",
		", blocked":                                                    ", bloqué",
		"· %s (seq %d): an event type this version does not know, kept as stored": "· %s (seq %d) : un type d'événement inconnu de cette version, gardé tel qu'enregistré",
		" [synthetic: moteur answered, the call never finished]":                  " [synthétique : moteur a répondu, l'appel n'a jamais fini]",
		" [truncated]":                          " [tronqué]",
		"1 more line":                           "1 ligne de plus",
		"%d more lines":                         "%d lignes de plus",
		"⟲ rewound to %d (%s)":                  "⟲ ramenée au seq %d (%s)",
		": no file to put back":                 " : aucun fichier à ramener",
		"  ✗ %s: %s":                            "  ✗ %s : %s",
		"  the conversation is back before: %s": "  la conversation est revenue à avant : %s",
		"! %s: %s":                              "! %s : %s",

		// moteur sessions follow
		"Print a session's events as its turns run, in this process or another": "Afficher les événements d'une session pendant ses tours, dans ce processus ou un autre",
		"Print the events of session ID as moteur run prints a turn: first those stored after seq SEQ\n" +
			"(--after, default 0: all of them), then each new one as the session's turns run, whichever\n" +
			"process runs them (moteur run, chat or serve, on this machine or another sharing the store).\n" +
			"It takes no lease and needs no model: the session goes on as if nobody followed it.\n" +
			"The streamed text of an answer is shown once its message is stored.\n\n" +
			"With --json, print every event as one JSON object per line, exactly as moteur run --json does.\n" +
			"A follower that fell behind is told so (a Warning of kind follower_lagged, a note on standard\n" +
			"error without --json), and goes on with the stored events it missed.\n\n" +
			"It runs until Ctrl-C (exit status 0). With --until-turn-end it exits, 0, once a turn has ended\n" +
			"that had not ended when it began: after the TurnCompleted of the turn running then, or, when\n" +
			"none was, of the next turn to run.\n\n" +
			"Exit status: 0 when stopped by Ctrl-C or at the turn's end, 1 on an error (an unknown session,\n" +
			"--after beyond the session's end, the store failing), 2 on bad usage.": "Afficher les événements de la session ID comme moteur run affiche un tour : d'abord ceux\n" +
			"enregistrés après le seq SEQ (--after, 0 par défaut : tous), puis chaque nouveau pendant les tours\n" +
			"de la session, quel que soit le processus qui les exécute (moteur run, chat ou serve, sur cette\n" +
			"machine ou une autre qui partage le stockage). Ne prend aucun bail et ne demande aucun modèle : la\n" +
			"session continue comme si personne ne la suivait. Le texte diffusé d'une réponse s'affiche une\n" +
			"fois son message enregistré.\n\n" +
			"Avec --json, afficher chaque événement en un objet JSON par ligne, exactement comme moteur run\n" +
			"--json. Un suiveur qui a pris du retard en est averti (un Warning de kind follower_lagged, une\n" +
			"remarque sur la sortie d'erreur sans --json), et continue avec les événements enregistrés manqués.\n\n" +
			"Tourne jusqu'à Ctrl-C (code de sortie 0). Avec --until-turn-end, sort, avec 0, dès qu'un tour non\n" +
			"terminé à son début s'est terminé : après le TurnCompleted du tour alors en cours ou, s'il n'y en\n" +
			"avait pas, du prochain tour.\n\n" +
			"Code de sortie : 0 à l'arrêt par Ctrl-C ou à la fin du tour ; 1 en cas d'erreur (session inconnue,\n" +
			"--after au-delà de la fin de la session, panne du stockage) ; 2 en cas de mauvaise utilisation.",
		"print the stored events after this seq only (0: all of them)":          "n'afficher que les événements enregistrés après ce seq (0 : tous)",
		"exit once the turn running (or, when none is, the next one) has ended": "sortir dès que le tour en cours (ou, s'il n'y en a pas, le suivant) est terminé",
		"moteur: answer with %s":                        "moteur: répondez avec %s",
		"moteur: permission request %s: %s":             "moteur: demande d'autorisation %s : %s",
		"refused: no answer in time":                    "refusée : pas de réponse à temps",
		"withdrawn: the process that asked had stopped": "retirée : le processus demandeur s'était arrêté",
		"withdrawn (%s)":                                "retirée (%s)",

		// moteur db
		"Move Moteur's data between databases":                                             "Déplacer les données de Moteur d'une base de données à une autre",
		"Copy the sessions, audit heads, agents and API keys of one database into another": "Copier les sessions, têtes d'audit, agents et clés d'API d'une base de données dans une autre",
		"Copy the sessions (events, audit heads, forks, latest snapshot), custom agents and API keys of\n" +
			"--from (default: the data directory's moteur.db) into --to (default: $MOTEUR_DATABASE_URL), then check\n" +
			"that --to holds each session whole and verify each audit log against the heads it now holds.\n" +
			"Run it again after an interruption: what --to holds already is kept. Knowledge bases stay in the\n" +
			"SQLite file; pending permission requests are not copied.": "Copier les sessions (événements, têtes d'audit, bifurcations, dernier instantané), les agents\n" +
			"personnalisés et les clés d'API de --from (par défaut : le moteur.db du répertoire de données) dans --to\n" +
			"(par défaut : $MOTEUR_DATABASE_URL), puis vérifier que --to contient chaque session entière et chaque\n" +
			"journal d'audit au regard des têtes qu'elle contient désormais. Relancez-la après une interruption : ce\n" +
			"que --to contient déjà est gardé. Les bases de connaissances restent dans le fichier SQLite ; les\n" +
			"demandes d'autorisation en attente ne sont pas copiées.",
		"the database to copy from: sqlite:PATH, a path or postgres://… (default: the data directory's moteur.db)":                     "la base d'où copier : sqlite:CHEMIN, un chemin ou postgres://… (par défaut : le moteur.db du répertoire de données)",
		"the database to copy into (default: $MOTEUR_DATABASE_URL)":                                                                    "la base où copier (par défaut : $MOTEUR_DATABASE_URL)",
		"print the report as a JSON object":                                                                                            "afficher le compte rendu en objet JSON",
		"db migrate: say where to copy to with --to postgres://… (or set $MOTEUR_DATABASE_URL)":                                        "db migrate : dites où copier avec --to postgres://… (ou définissez $MOTEUR_DATABASE_URL)",
		"db migrate: --from and --to are the same database (%s)":                                                                       "db migrate : --from et --to sont la même base (%s)",
		"sessions: %d of %d (%d events copied)":                                                                                        "sessions : %d sur %d (%d événements copiés)",
		"copied %d sessions (%d events; %d already there), %d agents and %d API keys from %s to %s; %d audit logs verified against %s": "%d sessions copiées (%d événements ; %d déjà là), %d agents et %d clés d'API de %s vers %s ; %d journaux d'audit vérifiés au regard de %s",
	})
}
