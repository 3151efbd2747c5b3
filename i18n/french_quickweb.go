package i18n

// The French of the quick answer's web results: what package rag tells
// the model and the user about them, and the notes of package app when a
// quick answer cannot search the web.
func init() {
	addFrench(map[string]string{
		// rag/web.go.
		"web result": "résultat web",
		"- Sources whose id starts with w are web search results (their headings attribute says \"web result\" and gives the address); the others are passages of the knowledge bases. Cite a web result by its id like a passage, for example [w1].": "- Les sources dont l'identifiant commence par w sont des résultats de recherche web (leur attribut headings dit « résultat web » et donne l'adresse) ; les autres sont des passages des bases de connaissances. Cite un résultat web par son identifiant comme un passage, par exemple [w1].",
		"- Sources whose id starts with w are web search results (their headings attribute says \"web result\" and gives the address); the others are passages of the knowledge bases.":                                                               "- Les sources dont l'identifiant commence par w sont des résultats de recherche web (leur attribut headings dit « résultat web » et donne l'adresse) ; les autres sont des passages des bases de connaissances.",
		"web search failed (%s): answered from the knowledge bases alone":                    "la recherche web a échoué (%s) : réponse à partir des seules bases de connaissances",
		"web search refused (%s): nothing was sent, answered from the knowledge bases alone": "recherche web refusée (%s) : rien n'a été envoyé, réponse à partir des seules bases de connaissances",
		// app/quickweb.go.
		"web search: no search provider in the configuration (web.search): the quick answer searches the knowledge bases alone": "recherche web : aucun fournisseur de recherche dans la configuration (web.search) : la réponse rapide cherche dans les seules bases de connaissances",
		"web search is off: %v; the quick answer searches the knowledge bases alone":                                            "la recherche web est désactivée : %v ; la réponse rapide cherche dans les seules bases de connaissances",
	})
}
