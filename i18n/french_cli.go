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
		// The positional arguments of a command (cmd/moteur/args.go).
		"takes no argument, got %q":             "ne prend pas d'argument, reçu %q",
		"takes %d argument(s), got %d":          "prend %d argument(s), reçu %d",
		"takes at least %d argument(s), got %d": "prend au moins %d argument(s), reçu %d",
		"takes at most %d argument(s), got %d":  "prend au plus %d argument(s), reçu %d",
		"takes %d to %d arguments, got %d":      "prend de %d à %d arguments, reçu %d",
		// moteur chat's full-screen interface.
		"unknown command or skill /%s (/help lists the commands)": "commande ou skill /%s inconnu (/help liste les commandes)",
		"a turn is already running":                               "un tour est déjà en cours",
		"show the turn: %w":                                       "affichage du tour : %w",
		"rewound to seq %d":                                       "session ramenée au seq %d",
	})
}
