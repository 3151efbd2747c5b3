package i18n

// The French of the commands moteur agents, keys, mcp, skills, serve and
// version, and of the --agent flag's messages.
func init() {
	addFrench(map[string]string{
		// moteur agents
		"Agents: the built-in and custom agents a session runs as, and the sub-agents": "Agents : les agents intégrés et personnalisés d'une session, et les sous-agents",
		"Agents are what a session runs as (moteur run --agent NAME, and the agents of moteur serve): the\n" +
			"built-in ones and the custom ones you create here, stored in $MOTEUR_HOME/moteur.db, each with a mode\n" +
			"(quick-answer or smart-reasoning), a model, its knowledge bases, a prompt and the other settings of\n" +
			"seed 000's CustomAgentConfig. Sub-agents are the agents the `agent` tool may start inside a session\n" +
			"(.moteur/agents/*.md, .claude/agents/*.md): agents list shows them too.": "Une session s'exécute en tant qu'agent (moteur run --agent NOM, et les agents de moteur serve) :\n" +
			"les agents intégrés et les agents personnalisés que vous créez ici, enregistrés dans\n" +
			"$MOTEUR_HOME/moteur.db, chacun avec un mode (quick-answer ou smart-reasoning), un modèle, ses bases\n" +
			"de connaissances, un prompt et les autres réglages du CustomAgentConfig de la graine 000. Les\n" +
			"sous-agents sont les agents que l'outil `agent` peut lancer dans une session (.moteur/agents/*.md,\n" +
			".claude/agents/*.md) : agents list les montre aussi.",
		"List the built-in and custom agents, then the sub-agents, each with its kind": "Lister les agents intégrés et personnalisés, puis les sous-agents, chacun avec son type",
		"List the agents a session may run as: the built-in ones (kind builtin), then the custom ones (kind\n" +
			"custom) by name; each line gives the id, the name, the mode and the description. Then the sub-agents\n" +
			"(kind sub-agent) of .moteur/agents/*.md and .claude/agents/*.md in the project, then of\n" +
			"$XDG_CONFIG_HOME/moteur/agents/*.md (Claude Code's sub-agent file format), then the built-ins\n" +
			"general-purpose and explore; first wins. Each gives the name, where it comes from, its tools\n" +
			"(all: its parent's) and its description; what cannot be used is reported with the file and why.\n\n" +
			"Exit status: 0, 1 when the configuration or the database cannot be read, 2 on bad usage.": "Lister les agents d'une session : les agents intégrés (type builtin), puis les personnalisés (type\n" +
			"custom) par nom ; chaque ligne donne l'id, le nom, le mode et la description. Puis les sous-agents\n" +
			"(type sub-agent) de .moteur/agents/*.md et .claude/agents/*.md du projet, puis de\n" +
			"$XDG_CONFIG_HOME/moteur/agents/*.md (le format de fichier des sous-agents de Claude Code), puis les\n" +
			"intégrés general-purpose et explore ; le premier l'emporte. Chacun donne son nom, sa provenance, ses\n" +
			"outils (all : ceux de son parent) et sa description ; ce qui est inutilisable est signalé avec le\n" +
			"fichier et la raison.\n\n" +
			"Code de sortie : 0 ; 1 si la configuration ou la base de données est illisible ; 2 en cas de\n" +
			"mauvaise utilisation.",
		"print the agents as one JSON object": "afficher les agents en un seul objet JSON",

		// moteur agents create, show, edit, rm, presets
		"Create a custom agent": "Créer un agent personnalisé",
		"Create a custom agent, stored in $MOTEUR_HOME/moteur.db. Its settings come from --preset (a type\n" +
			"preset: moteur agents presets), then --file (an agent as moteur agents show --json prints it, in\n" +
			"JSON or YAML), then the flags; what none sets gets seed 000's defaults (temperature 0.7, 2048\n" +
			"tokens for a quick answer and 4096 for smart reasoning, access auto_write, 10 iterations…).\n" +
			"NAME may be left out when the file has a name. Run a session as it with moteur run --agent NAME.\n\n" +
			"Exit status: 0, 1 when the database cannot be written, 2 on bad usage, an invalid setting (named)\n" +
			"or a name already taken.": "Créer un agent personnalisé, enregistré dans $MOTEUR_HOME/moteur.db. Ses réglages viennent de\n" +
			"--preset (un modèle de type : moteur agents presets), puis de --file (un agent tel que l'affiche\n" +
			"moteur agents show --json, en JSON ou YAML), puis des options ; ce qu'aucun ne fixe prend les\n" +
			"valeurs par défaut de la graine 000 (température 0.7, 2048 tokens pour une réponse rapide et 4096\n" +
			"pour le raisonnement, accès auto_write, 10 itérations…). NOM peut être omis si le fichier a un\n" +
			"nom. Lancez une session avec cet agent par moteur run --agent NOM.\n\n" +
			"Code de sortie : 0 ; 1 si la base de données ne peut être écrite ; 2 en cas de mauvaise\n" +
			"utilisation, de réglage invalide (nommé) ou de nom déjà pris.",
		"start from a type preset: rag-qa, data-analysis or custom (moteur agents presets)":        "partir d'un modèle de type : rag-qa, data-analysis ou custom (moteur agents presets)",
		"agent_mode: quick-answer (one answer from the bases) or smart-reasoning (the agent loop)": "agent_mode : quick-answer (une réponse tirée des bases) ou smart-reasoning (la boucle de l'agent)",
		"model_id: a provider of the configuration, or a model name":                               "model_id : un fournisseur de la configuration, ou un nom de modèle",
		"temperature, 0 to 2 (default 0.7)":                                                        "température, de 0 à 2 (0.7 par défaut)",
		"max_completion_tokens (default by mode)":                                                  "max_completion_tokens (par défaut : selon le mode)",
		"a knowledge base the agent uses (repeat; default: every base)":                            "une base de connaissances de l'agent (répétable ; par défaut : toutes les bases)",
		"system_prompt: added to Moteur's own prompt":                                              "system_prompt : ajouté au prompt propre de Moteur",
		"read system_prompt from this file":                                                        "lire system_prompt dans ce fichier",
		"access_level: read_only, confirm or auto_write (default auto_write)":                      "access_level : read_only, confirm ou auto_write (auto_write par défaut)",
		"what the agent is for":                                                                    "à quoi sert l'agent",
		"read the agent from this .json or .yaml file":                                             "lire l'agent dans ce fichier .json ou .yaml",
		"print the new agent as JSON":                                                              "afficher le nouvel agent en JSON",
		"--preset %q: no such preset (moteur agents presets lists them)":                           "--preset %q : modèle inconnu (moteur agents presets les liste)",
		"agents create: give the agent a NAME (or a name in --file)":                               "agents create : donnez un NOM à l'agent (ou un name dans --file)",
		"Created agent %s (%s, %s). Run it with: moteur run --agent %s PROMPT\n":                   "Agent %s créé (%s, %s). Lancez-le avec : moteur run --agent %s PROMPT\n",
		"Show an agent: built-in or custom, by id or name":                                         "Afficher un agent, intégré ou personnalisé, par id ou par nom",
		"Show an agent and its whole configuration (defaults applied). REF is an id or a name: a built-in\n" +
			"agent's id, then a custom agent's id, then a custom agent's name (case ignored), then a built-in's\n" +
			"name. --json prints what --file reads back.": "Afficher un agent et toute sa configuration (valeurs par défaut appliquées). REF est un id ou un\n" +
			"nom : l'id d'un agent intégré, puis l'id d'un agent personnalisé, puis le nom d'un agent\n" +
			"personnalisé (casse ignorée), puis le nom d'un intégré. --json affiche ce que --file relit.",
		"print the agent as JSON":                "afficher l'agent en JSON",
		"ID\t%s\nName\t%s\nKind\t%s\nMode\t%s\n": "ID\t%s\nNom\t%s\nType\t%s\nMode\t%s\n",
		"Description\t%s\n":                      "Description\t%s\n",
		"Created\t%s\nUpdated\t%s\n":             "Créé\t%s\nModifié\t%s\n",
		"Config:":                                "Configuration :",
		"Change a custom agent":                  "Modifier un agent personnalisé",
		"Change a custom agent: --file replaces the settings the file has (an agent as moteur agents show\n" +
			"--json prints it, JSON or YAML), then each --set key=value, in order. Keys are name, description and\n" +
			"the config's fields under their wire names (moteur agents show --json lists them). Lists are\n" +
			"comma-separated (knowledge_bases=docs,rh; an empty value is the empty list; allowed_tools=null is the\n" +
			"default tools). Listing knowledge_bases, mcp_services or selected_skills sets their selection mode to\n" +
			"selected unless the edit sets it too; changing agent_mode picks the new mode's default\n" +
			"max_completion_tokens when the agent had the old one's.\n" +
			"Built-in agents cannot be changed: create one from them with moteur agents show ID --json > f.json\n" +
			"and moteur agents create NAME --file f.json.": "Modifier un agent personnalisé : --file remplace les réglages que le fichier contient (un agent tel\n" +
			"que l'affiche moteur agents show --json, en JSON ou YAML), puis chaque --set clé=valeur, dans\n" +
			"l'ordre. Les clés sont name, description et les champs de la configuration sous leur nom JSON\n" +
			"(moteur agents show --json les liste). Les listes sont séparées par des virgules\n" +
			"(knowledge_bases=docs,rh ; une valeur vide est la liste vide ; allowed_tools=null donne les outils\n" +
			"par défaut). Lister knowledge_bases, mcp_services ou selected_skills met leur mode de sélection à\n" +
			"selected, sauf si la modification le fixe aussi ; changer agent_mode prend le max_completion_tokens\n" +
			"par défaut du nouveau mode quand l'agent avait celui de l'ancien.\n" +
			"Les agents intégrés ne se modifient pas : créez-en un à partir d'eux avec\n" +
			"moteur agents show ID --json > f.json et moteur agents create NOM --file f.json.",
		"agents edit: nothing to change: give --set key=value or --file": "agents edit : rien à modifier : donnez --set clé=valeur ou --file",
		"key=value: set one setting (repeat)":                            "clé=valeur : fixer un réglage (répétable)",
		"read settings from this .json or .yaml file":                    "lire les réglages dans ce fichier .json ou .yaml",
		"print the changed agent as JSON":                                "afficher l'agent modifié en JSON",
		"agent %s: %w: it cannot be changed; copy it with moteur agents show %s --json > f.json and moteur agents create NAME --file f.json": "agent %s : %w : il ne peut être modifié ; copiez-le avec moteur agents show %s --json > f.json et moteur agents create NOM --file f.json",
		"Updated agent %s (%s).\n": "Agent %s modifié (%s).\n",
		"Remove a custom agent":    "Supprimer un agent personnalisé",
		"Remove a custom agent (by id or name). Sessions that ran as it keep their events. Asks for\n" +
			"confirmation on a terminal; otherwise --yes is required. Built-in agents cannot be removed.": "Supprimer un agent personnalisé (par id ou par nom). Les sessions qu'il a menées gardent leurs\n" +
			"événements. Demande confirmation sur un terminal ; sinon --yes est requis. Les agents intégrés ne\n" +
			"se suppriment pas.",
		"agents rm asks for confirmation: pass --yes when standard input is not a terminal": "agents rm demande confirmation : passez --yes quand l'entrée standard n'est pas un terminal",
		"remove without asking":                                           "supprimer sans demander",
		"agent %s: %w: it cannot be removed":                              "agent %s : %w : il ne peut être supprimé",
		"Remove agent %s (%s)? [y/N] ":                                    "Supprimer l'agent %s (%s) ? [o/N] ",
		"agent %s not removed":                                            "agent %s non supprimé",
		"Removed agent %s (%s).\n":                                        "Agent %s supprimé (%s).\n",
		"List the type presets moteur agents create --preset starts from": "Lister les modèles de type dont part moteur agents create --preset",
		"print the presets as JSON":                                       "afficher les modèles en JSON",

		// --file and --set of agents create and edit
		"--file %s: want a .json, .yaml or .yml file": "--file %s : il faut un fichier .json, .yaml ou .yml",
		"--file %s: more than one JSON value":         "--file %s : plus d'une valeur JSON",
		"--set %q: want key=value":                    "--set %q : il faut clé=valeur",
		"--set: unknown key %q; keys: %s":             "--set : clé inconnue %q ; clés : %s",
		"%q is not a whole number":                    "%q n'est pas un nombre entier",
		"%q is not a number":                          "%q n'est pas un nombre",
		"cannot be set from the command line":         "ne peut être fixé en ligne de commande",
		"%q is not true or false":                     "%q n'est ni true ni false",

		// the agent store's errors
		"agent %q: %w":                       "agent %q : %w",
		"%w (moteur agents list shows them)": "%w (moteur agents list les montre)",
		"%w (fix it, or remove it with moteur agents rm ID --yes)": "%w (corrigez-le, ou supprimez-le avec moteur agents rm ID --yes)",

		// --agent with a quick-answer agent
		"moteur: note: %s is a quick-answer agent: it answers from the knowledge bases in one retrieval and one generation, as moteur ask does, not in the agent loop\n": "moteur : remarque : %s est un agent quick-answer : il répond à partir des bases de connaissances en une recherche et une génération, comme moteur ask, pas dans la boucle de l'agent\n",
		"moteur chat · session %s · agent %s (quick answer)":                  "moteur chat · session %s · agent %s (réponse rapide)",
		" · continued (%d events)":                                            " · reprise (%d événements)",
		" · /exit to quit":                                                    " · /exit pour quitter",
		"moteur: a quick-answer agent knows /exit, /quit and /session only\n": "moteur : un agent quick-answer ne connaît que /exit, /quit et /session\n",

		// moteur keys
		"Create, list and remove the API keys of moteur serve": "Créer, lister et supprimer les clés d'API de moteur serve",
		"moteur serve answers only requests with a key (X-API-Key: KEY or Authorization: Bearer KEY). A key\n" +
			"may be limited to some knowledge bases and agents. Keys live in $MOTEUR_HOME/moteur.db, where only\n" +
			"a SHA-256 of each secret is stored: the secret is shown once, when the key is made.": "moteur serve ne répond qu'aux requêtes munies d'une clé (X-API-Key: CLÉ ou Authorization: Bearer\n" +
			"CLÉ). Une clé peut être limitée à certaines bases de connaissances et à certains agents. Les clés\n" +
			"sont dans $MOTEUR_HOME/moteur.db, qui ne garde qu'un SHA-256 de chaque secret : le secret est\n" +
			"affiché une seule fois, à la création de la clé.",
		"Make an API key and print its secret, once": "Créer une clé d'API et afficher son secret, une seule fois",
		"Make an API key named NAME and print its secret on standard output: it is shown this once and cannot\n" +
			"be recovered (only its SHA-256 is stored); lost, remove the key and make another. --kb limits the key\n" +
			"to those knowledge bases and --agent to those agents (an id or a name, stored as the agent's id);\n" +
			"without them it reaches every base and every agent. --wait-approvals lets its requests to the\n" +
			"OpenAI-compatible door wait for a person's approval instead of being refused.": "Créer une clé d'API nommée NOM et afficher son secret sur la sortie standard : il n'est montré\n" +
			"que cette fois et ne peut être retrouvé (seul son SHA-256 est gardé) ; perdu, supprimez la clé et\n" +
			"créez-en une autre. --kb limite la clé à ces bases de connaissances et --agent à ces agents (un id\n" +
			"ou un nom, gardé comme id de l'agent) ; sans eux, elle atteint toutes les bases et tous les agents.\n" +
			"--wait-approvals laisse ses requêtes à la porte compatible OpenAI attendre l'accord d'une personne\n" +
			"au lieu d'être refusées.",
		"a knowledge base the key may use (repeat; default: every base)":                      "une base de connaissances permise à la clé (répétable ; par défaut : toutes les bases)",
		"an agent the key may use, by id or name (repeat; default: every agent)":              "un agent permis à la clé, par id ou par nom (répétable ; par défaut : tous les agents)",
		"requests may wait for a person's approval":                                           "les requêtes peuvent attendre l'accord d'une personne",
		"print the key and its secret as one JSON object":                                     "afficher la clé et son secret en un seul objet JSON",
		"moteur: created API key %s (%s), %s. Its secret is shown this once: store it now.\n": "moteur : clé d'API %s créée (%s), %s. Son secret n'est affiché que cette fois : conservez-le maintenant.\n",
		"bases: all":             "bases : toutes",
		"agents: all":            "agents : tous",
		"bases: %s":              "bases : %s",
		"agents: %s":             "agents : %s",
		"may wait for approvals": "peut attendre les accords",
		"; ":                     " ; ",
		"List the API keys (never their secrets)":                "Lister les clés d'API (jamais leurs secrets)",
		"No API key yet. Make one with: moteur keys create NAME": "Aucune clé d'API pour l'instant. Créez-en une avec : moteur keys create NOM",
		"print the keys as a JSON array":                         "afficher les clés en tableau JSON",
		"Remove (revoke) an API key: it stops working at once":   "Supprimer (révoquer) une clé d'API : elle cesse aussitôt de fonctionner",
		"Removed API key %s: it no longer works.\n":              "Clé d'API %s supprimée : elle ne fonctionne plus.\n",

		// moteur mcp
		"MCP: list the configured servers (list), log in to one (login), serve the knowledge bases to MCP clients (serve)": "MCP : lister les serveurs configurés (list), s'y connecter (login), servir les bases de connaissances aux clients MCP (serve)",
		"List the MCP servers a session here would use, and start them to check":                                           "Lister les serveurs MCP qu'utiliserait une session ici, et les démarrer pour vérifier",
		"List the MCP servers of the project's .mcp.json and of your own file ($XDG_CONFIG_HOME/moteur/mcp.json):\n" +
			"each one's transport, where it is configured, whether it is trusted, its state (connected, down,\n" +
			"untrusted, disabled), its tool count and why it is not running. The servers that may start are\n" +
			"started, as a session would, and stopped again; a project's file that is not trusted is not run\n" +
			"(moteur run or chat asks on a terminal; --trust-project, here or there, trusts it).\n\n" +
			"Exit status: 0, whatever the servers' state; 1 when a file cannot be read; 2 on bad usage.": "Lister les serveurs MCP du .mcp.json du projet et de votre propre fichier\n" +
			"($XDG_CONFIG_HOME/moteur/mcp.json) : le transport de chacun, où il est configuré, s'il est de\n" +
			"confiance, son état (connected, down, untrusted, disabled), son nombre d'outils et pourquoi il ne\n" +
			"tourne pas. Les serveurs qui peuvent démarrer sont démarrés, comme le ferait une session, puis\n" +
			"arrêtés ; le fichier d'un projet qui n'est pas de confiance n'est pas lancé (moteur run ou chat\n" +
			"demande sur un terminal ; --trust-project, ici ou là, lui accorde la confiance).\n\n" +
			"Code de sortie : 0, quel que soit l'état des serveurs ; 1 si un fichier est illisible ; 2 en cas de\n" +
			"mauvaise utilisation.",
		"print the report as one JSON object":                                                      "afficher le rapport en un seul objet JSON",
		"trust the project's .mcp.json as it is now, and remember it, so that its servers start":   "faire confiance au .mcp.json du projet tel qu'il est, et s'en souvenir, pour que ses serveurs démarrent",
		"no MCP server configured (.mcp.json in the project, or $XDG_CONFIG_HOME/moteur/mcp.json)": "aucun serveur MCP configuré (.mcp.json dans le projet, ou $XDG_CONFIG_HOME/moteur/mcp.json)",
		"Log in to an MCP server that asks for OAuth":                                              "Se connecter à un serveur MCP qui demande OAuth",
		"Log in to the HTTP MCP server NAME of the configuration, as the MCP authorization specification says:\n" +
			"Moteur finds the server's authorization server, registers itself there when no client id is\n" +
			"configured, prints the URL to open (and opens it on a desktop), waits up to 5 minutes for the\n" +
			"browser to come back to a loopback address, and exchanges the code (PKCE) for tokens. The tokens\n" +
			"are kept encrypted under the data directory (mcp-oauth/, mode 0600) and refreshed by themselves;\n" +
			"a session that meets a server whose login expired for good says to run this again.\n" +
			"Every host involved must pass the allowlists and the organisation policy.\n\n" +
			"Exit status: 0 when logged in, 1 on an error, 2 on bad usage.": "Se connecter au serveur MCP HTTP NOM de la configuration, comme le dit la spécification\n" +
			"d'autorisation de MCP : Moteur trouve le serveur d'autorisation du serveur, s'y enregistre quand\n" +
			"aucun id de client n'est configuré, affiche l'URL à ouvrir (et l'ouvre sur un poste de travail),\n" +
			"attend jusqu'à 5 minutes que le navigateur revienne sur une adresse locale, puis échange le code\n" +
			"(PKCE) contre des jetons. Les jetons sont gardés chiffrés dans le répertoire de données\n" +
			"(mcp-oauth/, mode 0600) et renouvelés d'eux-mêmes ; une session qui rencontre un serveur dont la\n" +
			"connexion a expiré pour de bon dit de relancer cette commande.\n" +
			"Chaque hôte en jeu doit passer les listes d'autorisation et la politique de l'organisation.\n\n" +
			"Code de sortie : 0 une fois connecté ; 1 en cas d'erreur ; 2 en cas de mauvaise utilisation.",
		"Serve the knowledge bases to MCP clients (Claude Code, Codex…), read-only": "Servir les bases de connaissances aux clients MCP (Claude Code, Codex…), en lecture seule",
		"Serve the knowledge bases as an MCP server, over standard input and output (the default: the client\n" +
			"starts moteur mcp serve) or streamable HTTP (--http ADDR, at http://ADDR/mcp). Clients get the\n" +
			"tools search_knowledge, read_document, list_documents and ask (the quick answer of moteur ask: with no\n" +
			"model configured, it quotes the passages), each result with its citations. Nothing that writes is served.\n\n" +
			"Passages of classified documents (a classify: path rule, or a marking in the document) are withheld,\n" +
			"since Moteur cannot know where a client sends them; each result says which document and which rule.\n" +
			"--serve-classified serves them anyway: only for a client you trust with them.\n\n" +
			"--http :PORT listens on 127.0.0.1 only; give a host (0.0.0.0:PORT) to listen on other interfaces,\n" +
			"which serves the bases to anyone who can reach the port: there is no authentication.": "Servir les bases de connaissances en serveur MCP, sur l'entrée et la sortie standard (par défaut :\n" +
			"le client lance moteur mcp serve) ou en HTTP streamable (--http ADDR, à http://ADDR/mcp). Les\n" +
			"clients reçoivent les outils search_knowledge, read_document, list_documents et ask (la réponse\n" +
			"rapide de moteur ask : sans modèle configuré, elle cite les passages), chaque résultat avec ses\n" +
			"citations. Rien de ce qui écrit n'est servi.\n\n" +
			"Les passages des documents classifiés (une règle de chemin classify:, ou un marquage dans le\n" +
			"document) sont retenus, car Moteur ne peut savoir où un client les envoie ; chaque résultat dit\n" +
			"quel document et quelle règle. --serve-classified les sert malgré tout : seulement pour un client\n" +
			"à qui vous les confiez.\n\n" +
			"--http :PORT n'écoute que sur 127.0.0.1 ; donnez un hôte (0.0.0.0:PORT) pour écouter sur d'autres\n" +
			"interfaces, ce qui sert les bases à quiconque atteint le port : il n'y a pas d'authentification.",
		"  moteur mcp serve --kb docs\n  claude mcp add moteur -- moteur mcp serve --kb docs\n  moteur mcp serve --http :8765": "  moteur mcp serve --kb docs\n  claude mcp add moteur -- moteur mcp serve --kb docs\n  moteur mcp serve --http :8765",
		"knowledge bases to serve (repeat or separate with commas; default all)":                                               "bases de connaissances à servir (répétable ou séparées par des virgules ; par défaut toutes)",
		"serve streamable HTTP on ADDR (HOST:PORT; :PORT is 127.0.0.1) instead of stdio":                                       "servir en HTTP streamable sur ADDR (HÔTE:PORT ; :PORT vaut 127.0.0.1) au lieu de stdio",
		"serve passages of classified documents instead of withholding them":                                                   "servir les passages des documents classifiés au lieu de les retenir",
		"search mode of ask: hybrid, semantic or keyword":                                                                      "mode de recherche de ask : hybrid, semantic ou keyword",
		"--serve-classified: passages of classified documents are served to the MCP client, wherever it sends them":            "--serve-classified : les passages des documents classifiés sont servis au client MCP, où qu'il les envoie",
		"moteur: serving MCP over stdio: knowledge bases %s, tools %s\n":                                                       "moteur : MCP servi sur stdio : bases de connaissances %s, outils %s\n",
		"--http %s listens beyond this machine: anyone who can reach %s reads the knowledge bases %s (no authentication)":      "--http %s écoute au-delà de cette machine : quiconque atteint %s lit les bases de connaissances %s (sans authentification)",
		"moteur: serving MCP on http://%s%s: knowledge bases %s, tools %s\n":                                                   "moteur : MCP servi sur http://%s%s : bases de connaissances %s, outils %s\n",

		// trusting a project's .mcp.json or hooks
		"This project's %s runs %s that came with its code:\n":       "Le fichier %s de ce projet lance des %s venus avec son code :\n",
		"They run with your rights. Trust them (sha256 %s…)? [y/N] ": "Ils s'exécutent avec vos droits. Leur faire confiance (sha256 %s…) ? [y/N] ",
		"hooks":       "hooks",
		"MCP servers": "serveurs MCP",

		// moteur skills
		"Skills: SKILL.md packages the agent reads on demand":                             "Skills : les paquets SKILL.md que l'agent lit à la demande",
		"List the skills a session here is offered, and the packages that cannot be used": "Lister les skills offerts à une session ici, et les paquets inutilisables",
		"List the skills of $XDG_CONFIG_HOME/moteur/skills, .moteur/skills, .agents/skills and .claude/skills\n" +
			"(first wins): each one's name, where it comes from and its description, then the packages left out\n" +
			"(the configuration's skills: selection) and those that cannot be used, with the file and why.\n\n" +
			"Exit status: 0, 1 when the configuration cannot be read, 2 on bad usage.": "Lister les skills de $XDG_CONFIG_HOME/moteur/skills, .moteur/skills, .agents/skills et\n" +
			".claude/skills (le premier l'emporte) : le nom de chacun, sa provenance et sa description, puis les\n" +
			"paquets écartés (la sélection skills: de la configuration) et ceux qui sont inutilisables, avec le\n" +
			"fichier et la raison.\n\n" +
			"Code de sortie : 0 ; 1 si la configuration est illisible ; 2 en cas de mauvaise utilisation.",
		"print the skills as one JSON object":                       "afficher les skills en un seul objet JSON",
		"%s: not offered (the configuration's skills: selection)\n": "%s : non proposé (la sélection skills: de la configuration)\n",
		"no skills (SKILL.md packages in .moteur/skills/, .agents/skills/, .claude/skills/ or $XDG_CONFIG_HOME/moteur/skills/)": "aucun skill (paquets SKILL.md dans .moteur/skills/, .agents/skills/, .claude/skills/ ou $XDG_CONFIG_HOME/moteur/skills/)",

		// moteur serve
		"Serve the HTTP API, the web page and the OpenAI-compatible door": "Servir l'API HTTP, la page web et la porte compatible OpenAI",
		"Serve Moteur over HTTP: the JSON API under /api/v1 (sessions, agent-chat and knowledge-chat as\n" +
			"Server-Sent Events, session events with Last-Event-ID resume, approvals, agents, knowledge bases),\n" +
			"the web page at /, and an OpenAI-compatible door at /v1 (each agent is a model). Every request\n" +
			"needs an API key (moteur keys create NAME), in X-API-Key or Authorization: Bearer.\n\n" +
			"Turns run with the same configuration, store, audit log and policy as moteur run in this directory:\n" +
			"a session started in the browser continues with moteur chat --session ID, and the other way round.\n\n" +
			"On SIGTERM or Ctrl-C no new turn starts; running turns finish within --grace, then are cancelled\n" +
			"(each ends with TurnCompleted in its log). A second signal stops at once.": "Servir Moteur en HTTP : l'API JSON sous /api/v1 (sessions, agent-chat et knowledge-chat en\n" +
			"Server-Sent Events, événements de session avec reprise par Last-Event-ID, accords, agents, bases de\n" +
			"connaissances), la page web à /, et une porte compatible OpenAI à /v1 (chaque agent est un modèle).\n" +
			"Chaque requête demande une clé d'API (moteur keys create NOM), dans X-API-Key ou\n" +
			"Authorization: Bearer.\n\n" +
			"Les tours tournent avec la même configuration, le même stockage, le même journal d'audit et la même\n" +
			"politique que moteur run dans ce répertoire : une session commencée dans le navigateur se poursuit\n" +
			"avec moteur chat --session ID, et inversement.\n\n" +
			"Sur SIGTERM ou Ctrl-C, aucun nouveau tour ne démarre ; les tours en cours finissent dans le délai\n" +
			"--grace, puis sont annulés (chacun se termine par TurnCompleted dans son journal). Un second signal\n" +
			"arrête aussitôt.",
		"listen on HOST:PORT (:PORT is 127.0.0.1; port 0 picks a free one)":                                                                        "écouter sur HÔTE:PORT (:PORT vaut 127.0.0.1 ; le port 0 en choisit un libre)",
		"how long running turns may take to finish at shutdown":                                                                                    "le temps laissé aux tours en cours pour finir à l'arrêt",
		"access mode of every session: read_only, confirm or auto_write (default: the configuration's; an agent's access_level applies within it)": "mode d'accès de chaque session : read_only, confirm ou auto_write (par défaut : celui de la configuration ; l'access_level d'un agent s'applique en deçà)",
		"isolation of shell commands: auto, bwrap or none":                                                                                         "isolation des commandes shell : auto, bwrap ou none",
		"how long a call waits for an answer from the page or the API (default 10m)":                                                               "combien de temps un appel attend une réponse de la page ou de l'API (10m par défaut)",
		"data directory: %w": "répertoire de données : %w",
		"moteur: serving on %s (page %s/, API %s/api/v1, OpenAI door %s/v1)\n": "moteur : en service sur %s (page %s/, API %s/api/v1, porte OpenAI %s/v1)\n",
		"moteur: shutting down: running turns have %s to finish\n":             "moteur : arrêt en cours : les tours en cours ont %s pour finir\n",
		"close connections: %w": "fermeture des connexions : %w",
		"moteur: stopped":       "moteur : arrêté",

		// moteur version
		"Print the version of moteur and the commit it was built from": "Afficher la version de moteur et le commit dont il est construit",
		"encode version: %w":                 "encodage de la version : %w",
		"print the version as a JSON object": "afficher la version en objet JSON",
	})
}
