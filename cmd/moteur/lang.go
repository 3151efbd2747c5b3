package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/moteur/moteur/app"
	"github.com/moteur/moteur/i18n"
)

// The command line speaks one language per run, help included: the
// language is chosen before the command tree is built, from --lang as it
// appears in the arguments, else as app.Language resolves it (the
// configuration's lang, MOTEUR_LANG, French). Texts are written in English
// where they are used and translated by i18n's catalogues (french_cli*.go).

// chooseLang sets c.lang for the command line args.
func (c *cli) chooseLang(args []string) {
	flag := langArg(args)
	l, err := langFlagIn(i18n.EN, flag)
	if err != nil {
		l = "" // the flag's parse reports it
	}
	root, err := c.workDir()
	if err != nil {
		root = ""
	}
	c.lang = app.Language(app.Options{ProjectRoot: root, Env: c.env, Lang: l})
}

// langArg finds the value of --lang in args, "" when absent. Arguments
// after "--" are operands, not flags.
func langArg(args []string) string {
	for i, a := range args {
		switch {
		case a == "--":
			return ""
		case a == "--lang" && i+1 < len(args):
			return args[i+1]
		case strings.HasPrefix(a, "--lang="):
			return strings.TrimPrefix(a, "--lang=")
		}
	}
	return ""
}

// tr is the text en in the language of the run.
func (c *cli) tr(en string) string { return i18n.Tr(c.lang, en) }

// trf formats the translation of the English format en.
func (c *cli) trf(en string, args ...any) string { return i18n.Trf(c.lang, en, args...) }

// translateCobra puts cobra's own texts, at every level of the tree, in
// the run's language: the usage template's headings, the help command, and
// the -h and --version flags.
func (c *cli) translateCobra(root *cobra.Command) {
	if c.lang.Normalize() == i18n.EN {
		return
	}
	root.SetUsageTemplate(c.usageTemplate(root.UsageTemplate()))
	root.InitDefaultHelpCmd()
	for _, sub := range root.Commands() {
		if sub.Name() == "help" {
			sub.Short = c.tr("Help about any command")
			sub.Long = c.trf("Help provides help for any command in the application.\nSimply type %s help [path to command] for full details.", root.DisplayName())
		}
	}
	root.InitDefaultVersionFlag()
	if f := root.Flags().Lookup("version"); f != nil {
		f.Usage = c.trf("version for %s", root.DisplayName())
	}
	var walk func(cmd *cobra.Command)
	walk = func(cmd *cobra.Command) {
		cmd.InitDefaultHelpFlag()
		if f := cmd.Flags().Lookup("help"); f != nil {
			f.Usage = c.trf("help for %s", cmd.DisplayName())
		}
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

func init() {
	cobra.AddTemplateFunc("replace", func(old, new, s string) string { return strings.ReplaceAll(s, old, new) })
}

// usageTemplate translates the headings of cobra's usage template tmpl.
func (c *cli) usageTemplate(tmpl string) string {
	tmpl = strings.ReplaceAll(tmpl, cobraMoreHelp, c.trf(`Use "%s --help" for more information about a command.`, "{{.CommandPath}} [command]"))
	// pflag writes "(default x)" after a flag's usage.
	def := strings.ReplaceAll(c.tr(" (default "), `"`, `\"`)
	tmpl = strings.ReplaceAll(tmpl, "FlagUsages | trimTrailingWhitespaces}}", `FlagUsages | trimTrailingWhitespaces | replace " (default " "`+def+`"}}`)
	tmpl = strings.ReplaceAll(tmpl, "{{.UseLine}}", `{{replace "[flags]" "`+c.tr("[flags]")+`" .UseLine}}`)
	// Global Flags before Flags, which it contains.
	for _, h := range [][2]string{
		{"Usage:", c.tr("Usage:")}, {"Aliases:", c.tr("Aliases:")}, {"Examples:", c.tr("Examples:")},
		{"Available Commands:", c.tr("Available Commands:")}, {"Additional Commands:", c.tr("Additional Commands:")},
		{"Global Flags:", c.tr("Global Flags:")}, {"Flags:", c.tr("Flags:")},
		{cobraHelpTopics, c.tr("Additional help topics:")}, {"[command]", c.tr("[command]")},
	} {
		tmpl = strings.ReplaceAll(tmpl, h[0], h[1])
	}
	return tmpl
}

// Lines of cobra's usage template, as cobra writes them.
const (
	cobraMoreHelp   = `Use "{{.CommandPath}} [command] --help" for more information about a command.`
	cobraHelpTopics = "Additional help topics:"
)
