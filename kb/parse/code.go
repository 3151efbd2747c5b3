package parse

import "strings"

// codeLanguages maps source extensions to the language reported in
// Document.Meta["language"].
var codeLanguages = map[string]string{
	".go": "go", ".py": "python", ".pyi": "python",
	".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
	".ts": "typescript", ".tsx": "typescript", ".mts": "typescript",
	".java": "java", ".kt": "kotlin", ".kts": "kotlin", ".scala": "scala", ".groovy": "groovy",
	".c": "c", ".h": "c", ".cpp": "cpp", ".cc": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp",
	".cs": "csharp", ".rs": "rust", ".swift": "swift", ".dart": "dart", ".zig": "zig",
	".rb": "ruby", ".php": "php", ".pl": "perl", ".lua": "lua", ".r": "r",
	".ex": "elixir", ".exs": "elixir", ".erl": "erlang", ".hs": "haskell", ".clj": "clojure",
	".sh": "shell", ".bash": "shell", ".zsh": "shell", ".fish": "shell", ".ps1": "powershell", ".bat": "batch",
	".sql": "sql", ".graphql": "graphql", ".proto": "protobuf",
	".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".ini": "ini", ".cfg": "ini", ".conf": "conf",
	".xml": "xml", ".css": "css", ".scss": "scss", ".less": "less",
	".vue": "vue", ".svelte": "svelte", ".tf": "terraform", ".hcl": "hcl",
	".cmake": "cmake", ".gradle": "gradle", ".mk": "make",
}

// codeParser returns the parser for source files of one language.
func codeParser(lang string) parser {
	return func(data []byte) (Document, error) {
		text, warnings := DecodeText(data)
		var b builder
		for _, part := range splitTopLevel(text) {
			b.code(part)
		}
		doc := b.document()
		doc.Warnings = warnings
		doc.Meta = map[string]string{"language": lang}
		return doc, nil
	}
}

// splitTopLevel cuts source at blank lines followed by a line starting in
// column 0: in almost every language that is where a top-level
// declaration begins, while blank lines inside indented bodies keep a
// function in one piece. The chunker packs small pieces back together.
func splitTopLevel(text string) []string {
	var parts []string
	var cur []string
	blank := false
	for line := range strings.SplitSeq(text, "\n") {
		if strings.TrimSpace(line) == "" {
			blank = len(cur) > 0
			if blank {
				cur = append(cur, "")
			}
			continue
		}
		if blank && startsTopLevel(line) {
			parts = append(parts, strings.Join(cur, "\n"))
			cur = cur[:0]
		}
		blank = false
		cur = append(cur, line)
	}
	if len(cur) > 0 {
		parts = append(parts, strings.Join(cur, "\n"))
	}
	return parts
}

// startsTopLevel: not indented and not the closing bracket of a block.
func startsTopLevel(line string) bool {
	switch line[0] {
	case ' ', '\t', '}', ')', ']':
		return false
	}
	return true
}
