package i18n

// The French of the data tools' section of the system prompt (app/datatools.go):
// the tables of the knowledge bases and how to query them.
func init() {
	addFrench(map[string]string{
		"Tables of the knowledge bases (CSV, TSV, Excel), which data_schema and data_analysis read:": "Tableaux des bases de connaissances (CSV, TSV, Excel), que lisent data_schema et data_analysis :",
		"- %s (base %s, %s): %s":                    "- %s (base %s, %s) : %s",
		"- and %d more, which list_documents finds": "- et %d autres, que trouve list_documents",
		"- and %d more":                             "- et %d autres",
		"To answer from a table, compute the figures with SQL rather than reading rows: first data_schema with the document " +
			"(its dN id, or its name or path as listed here) for its columns and their types, then data_analysis with one SQL SELECT (SQLite dialect) " +
			"on the table `dataset`, which is always the document's table: never put its id or its name in the SQL.": "Pour répondre à partir d'un tableau, calcule les chiffres en SQL plutôt que de lire les lignes : d'abord data_schema avec le document " +
			"(son identifiant dN, ou son nom ou son chemin tel qu'il est listé ici) pour ses colonnes et leurs types, puis data_analysis avec un seul SELECT SQL (dialecte SQLite) " +
			"sur la table `dataset`, qui est toujours la table du document : ne mets jamais son identifiant ni son nom dans le SQL.",
		"Cite each figure with the document's id in brackets, like [d2], as the tools' results give it.": "Cite chaque chiffre par l'identifiant du document entre crochets, comme [d2], tel que le donnent les résultats des outils.",
	})
}
