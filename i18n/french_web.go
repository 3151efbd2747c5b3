package i18n

// The French of the web tools' switches: the flags of run, chat and ask,
// and the notes of package app when the web tools are asked for.
func init() {
	addFrench(map[string]string{
		// cmd/moteur/web.go.
		"offer the web tools for this run: web_fetch, and web_search when the configuration's web: section\n" +
			"names a search provider (default: the agent's web_search_enabled; without an agent, on when web: is set)": "proposer les outils web pour cette exécution : web_fetch, et web_search quand la section web: de la\n" +
			"configuration nomme un fournisseur de recherche (par défaut : le web_search_enabled de l'agent ; sans agent, actifs quand web: est présent)",
		"offer no web tool for this run, whatever the agent and the configuration say": "ne proposer aucun outil web pour cette exécution, quoi que disent l'agent et la configuration",
		"--web and --no-web contradict each other: give one of them":                   "--web et --no-web se contredisent : donnez l'un des deux",
		// app/web.go.
		"web tools: off in the %s profile, which sends nothing to the web": "outils web : désactivés dans le profil %s, qui n'envoie rien sur le web",
		"web_search is off: %v; web_fetch is offered alone":                "web_search est désactivé : %v ; web_fetch est proposé seul",
	})
}
