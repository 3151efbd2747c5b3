package i18n

// The French of the command line's frame: cobra's headings, its help
// command and flags, and the usage hint after a usage error.
func init() {
	addFrench(map[string]string{
		"Usage:":                  "Utilisation :",
		"Aliases:":                "Alias :",
		"Examples:":               "Exemples :",
		"Available Commands:":     "Commandes disponibles :",
		"Additional Commands:":    "Autres commandes :",
		"Flags:":                  "Options :",
		"Global Flags:":           "Options globales :",
		"Additional help topics:": "Autres sujets d'aide :",
		"[command]":               "[commande]",
		"[flags]":                 "[options]",
		`Use "%s --help" for more information about a command.`: `Lancez « %s --help » pour en savoir plus sur une commande.`,
		"Help about any command":                                "Aide sur une commande",
		"Help provides help for any command in the application.\nSimply type %s help [path to command] for full details.": "Affiche l'aide de n'importe quelle commande.\nTapez %s help [chemin de la commande] pour le détail.",
		"version for %s":             "version de %s",
		"help for %s":                "aide pour %s",
		"Run '%s --help' for usage.": "Lancez « %s --help » pour l'utilisation.",
		" (default ":                 " (par défaut : ",
	})
}
