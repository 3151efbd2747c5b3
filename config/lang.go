package config

// Lang is the lang the user's and the project's files set (the project's
// wins), "" when neither does. A file that cannot be read counts as
// setting nothing: Lang only chooses the language of the messages shown
// before the configuration is loaded, and Load reports the file.
func Lang(o LoadOptions) string {
	lang := ""
	for _, path := range []string{userPath(o.UserDir), projectPath(o.ProjectRoot)} {
		if path == "" {
			continue
		}
		if f, err := ReadFile(path); err == nil && f.Lang != "" {
			lang = f.Lang
		}
	}
	return lang
}
