package skills

import (
	"fmt"
	"strings"

	"github.com/moteur/moteur/i18n"
)

// sectionIntro introduces level 1, per language. It tells the model the
// three levels and that skill:// is not a shell path.
var sectionIntro = map[i18n.Lang]string{
	i18n.FR: `## Skills

Des skills sont disponibles : des paquets d'instructions, de scripts et de ressources pour des tâches précises. Quand une tâche correspond à la description d'un skill, lis d'abord son SKILL.md avec read_file(path="skill://NOM/SKILL.md") et suis ses instructions ; lis ses autres fichiers avec read_file(path="skill://NOM/CHEMIN") au besoin seulement, et exécute ses scripts avec shell_exec(skill_name="NOM", command="…"), qui s'exécute dans le répertoire du skill ($MOTEUR_SKILL_DIR). Les adresses skill:// ne sont pas des chemins du shell. Les fichiers d'un skill sont en lecture seule.

Skills disponibles :
`,
	i18n.EN: `## Skills

Skills are available: packages of instructions, scripts and resources for specific tasks. When a task matches a skill's description, first read its SKILL.md with read_file(path="skill://NAME/SKILL.md") and follow it; read its other files with read_file(path="skill://NAME/PATH") only when needed, and run its scripts with shell_exec(skill_name="NAME", command="…"), which runs in the skill's directory ($MOTEUR_SKILL_DIR). skill:// addresses are not shell paths. A skill's files are read-only.

Available skills:
`,
}

// Section returns level 1: the skills section of the system prompt, with
// the name and description of every skill offered that the model may
// invoke (not those with disable-model-invocation: true), or "" when there
// is none. Add it only when read_file is offered (seed 000): without it the
// model cannot go to level 2.
func (s *Set) Section(lang i18n.Lang) string {
	var b strings.Builder
	for _, k := range s.List() {
		if !k.ModelInvocable {
			continue
		}
		if b.Len() == 0 {
			b.WriteString(sectionIntro[lang.Normalize()])
		}
		fmt.Fprintf(&b, "- %s: %s\n", k.Name, oneLine(k.Description))
	}
	return b.String()
}

// oneLine keeps a description on its list line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
