package i18n

// The French of package app's errors, notes and warnings: the options the
// configuration refuses, what a configuration lacks, what a session should
// know before its first turn.
func init() {
	addFrench(map[string]string{
		"knowledge bases stay in %s on this machine: only sessions, agents, API keys and web snapshots are on PostgreSQL (%s)": "les bases de connaissances restent dans %s sur cette machine : seuls les sessions, agents, clés d'API et instantanés web sont sur PostgreSQL (%s)",
		// Agents (app/agent.go, app/settings.go, app/session.go, app/mcp.go).
		"%q: no such agent; the agents are: %s (moteur agents list)": "%q : agent inconnu ; les agents sont : %s (moteur agents list)",
		"none": "aucun",
		"%s is looser than the access_level %s of the agent %s":                                    "%s est plus permissif que l'access_level %s de l'agent %s",
		"%s is looser than min_mode %s of the organisation policy %s":                              "%s est plus permissif que le min_mode %s de la politique de l'organisation %s",
		"%s: the agent %s uses no knowledge base (kb_selection_mode none)":                         "%s : l'agent %s n'utilise aucune base de connaissances (kb_selection_mode none)",
		"%s is not among the knowledge bases of the agent %s (%s)":                                 "%s ne fait pas partie des bases de connaissances de l'agent %s (%s)",
		"%s uses no knowledge base (kb_selection_mode none): a quick answer has nothing to search": "%s n'utilise aucune base de connaissances (kb_selection_mode none) : une réponse rapide n'a rien où chercher",
		"agent %s: access_level %s runs as %s, the min_mode of the organisation policy %s":         "agent %s : l'access_level %s s'exécute en %s, le min_mode de la politique de l'organisation %s",
		"agent %s: allowed tool %s is not a tool of Moteur: ignored":                               "agent %s : l'outil autorisé %s n'est pas un outil de Moteur : ignoré",
		"MCP: agent %s: server %s is not configured":                                               "MCP : agent %s : le serveur %s n'est pas configuré",
		// Knowledge (app/knowledge.go, app/kberror.go).
		"knowledge base %s not found (see moteur kb list)":                               "base de connaissances %s introuvable (voir moteur kb list)",
		"embedding model %s has no server: set MOTEUR_EMBED_BASE_URL or MOTEUR_BASE_URL": "le modèle d'embedding %s n'a pas de serveur : définissez MOTEUR_EMBED_BASE_URL ou MOTEUR_BASE_URL",
		"rerank model %s has no server: set MOTEUR_RERANK_BASE_URL or MOTEUR_BASE_URL":   "le modèle de rerank %s n'a pas de serveur : définissez MOTEUR_RERANK_BASE_URL ou MOTEUR_BASE_URL",
		// The shell's sandbox (app/sandbox.go).
		" (set by the organisation policy %s)":                                                     " (imposé par la politique de l'organisation %s)",
		"none is not allowed: the %s profile%s requires the bubblewrap sandbox for shell commands": "none n'est pas permis : le profil %s%s exige le bac à sable bubblewrap pour les commandes shell",
		// Hooks (app/hooks.go).
		"hooks: the hooks of %v came with the project and are not trusted yet: not run " +
			"(moteur asks on a terminal, or pass --trust-project; asked again whenever they change)": "hooks : les hooks de %v viennent avec le projet et ne sont pas encore approuvés : non exécutés " +
			"(moteur le demande sur un terminal, ou passez --trust-project ; redemandé à chaque changement)",
		// The at-rest key (app/key.go).
		"key_file %s of the organisation policy %s names the user (%%u), but neither USER nor LOGNAME is set": "le key_file %s de la politique de l'organisation %s nomme l'utilisateur (%%u), mais ni USER ni LOGNAME n'est défini",
		"cannot locate the at-rest key: set XDG_CONFIG_HOME or HOME, or key_file in the organisation policy":  "impossible de situer la clé de chiffrement au repos : définissez XDG_CONFIG_HOME ou HOME, ou key_file dans la politique de l'organisation",
		"the data directory %s is protected by the at-rest key %s, but %s does not exist: " +
			"restore that file from a backup (without it, checkpoints cannot be restored and audit logs cannot be verified)": "le répertoire de données %s est protégé par la clé au repos %s, mais %s n'existe pas : " +
			"restaurez ce fichier depuis une sauvegarde (sans lui, les checkpoints ne peuvent être restaurés ni les journaux d'audit vérifiés)",
		"the at-rest key %s is key %s, but the data directory %s is protected by key %s: put the right key back at %s": "la clé au repos %s est la clé %s, mais le répertoire de données %s est protégé par la clé %s : remettez la bonne clé à %s",
		// The live session: its audit log and its transcript (app/live.go,
		// app/anchor.go, app/transcript.go, app/observer.go, app/rewind.go).
		"session %s: its audit log %s is missing, but the store holds %d events of it: the log was deleted or moved, " +
			"and the session is not continued without it (put it back; moteur audit verify %s checks it)": "session %s : son journal d'audit %s est absent, mais la base en contient %d événements : le journal a été supprimé ou déplacé, " +
			"et la session n'est pas poursuivie sans lui (remettez-le en place ; moteur audit verify %s le vérifie)",
		"session %s: %w (if a power loss tore it: moteur audit repair %s)":                                               "session %s : %w (si une coupure de courant l'a tronqué : moteur audit repair %s)",
		"session %s: %w; the session is not continued (moteur audit verify %s)":                                          "session %s : %w ; la session n'est pas poursuivie (moteur audit verify %s)",
		"session %s: store the event seq %d its audit log recorded: %w":                                                  "session %s : enregistrement de l'événement seq %d que son journal d'audit a consigné : %w",
		"session %s: stored event seq %d (%s) from the audit log, which recorded it before the previous process stopped": "session %s : événement seq %d (%s) enregistré depuis le journal d'audit, qui l'avait consigné avant l'arrêt du processus précédent",
		"MOTEUR_AUDIT_SYSLOG=%q: want on, off, or NETWORK:ADDRESS (unixgram:/dev/log, udp:host:514)":                     "MOTEUR_AUDIT_SYSLOG=%q : attendu on, off ou RÉSEAU:ADRESSE (unixgram:/dev/log, udp:host:514)",
		"session %s: its transcript %s %s: rebuilt from the store":                                                       "session %s : sa transcription %s %s : reconstruite depuis la base",
		"ends in a line longer than %d MiB":                                                                              "se termine par une ligne de plus de %d Mio",
		"ends in a line that is not an event":                                                                            "se termine par une ligne qui n'est pas un événement",
		"ends in an event of session %q":                                                                                 "se termine par un événement de la session %q",
		"ends in an event that is never stored":                                                                          "se termine par un événement jamais enregistré",
		"ends at seq %d, and the store at seq %d":                                                                        "s'arrête au seq %d, et la base au seq %d",
		"no session store in %s: session not found":                                                                      "aucune base de sessions dans %s : session introuvable",
		"cannot rewind: %w": "retour en arrière impossible : %w",
		// MCP (app/mcp_oauth.go, app/mcp_serve.go).
		"unknown MCP server: no MCP server %q in %s": "serveur MCP inconnu : aucun serveur MCP %q dans %s",
		" or ": " ou ",
		"MCP server %q is configured in %s, which came with the project and is not trusted yet: " +
			"trust it first (moteur mcp list --trust-project, or a session's question)": "le serveur MCP %q est configuré dans %s, venu avec le projet et pas encore approuvé : " +
			"approuvez-le d'abord (moteur mcp list --trust-project, ou la question d'une session)",
		"MCP server %q runs as a program (stdio): it has no OAuth login; its credentials come from its env": "le serveur MCP %q s'exécute comme un programme (stdio) : il n'a pas de connexion OAuth ; ses identifiants viennent de son env",
		"no knowledge base to serve: create one with moteur kb create NAME, then moteur kb add NAME FOLDER": "aucune base de connaissances à servir : créez-en une avec moteur kb create NOM, puis moteur kb add NOM DOSSIER",
	})
}
