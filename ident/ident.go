// Package ident owns the rule for the names Moteur lets users and clients
// choose and then uses as file names, URL segments and command-line words:
// session ids, agent ids. A name of this shape needs no quoting or escaping
// anywhere and cannot climb out of a directory.
//
// It is a loop over bytes rather than a regular expression on purpose: a
// bounded repetition such as {0,127} compiles into 127 copies of its
// operand, which every start of the binary would pay for.
package ident

// Valid reports whether s is 1 to max bytes long, made only of ASCII
// letters, digits, '.', '_' and '-', and starts with a letter or digit (so
// never ".", ".." or a hidden file, nor a flag).
func Valid(s string, max int) bool {
	if s == "" || len(s) > max || !alnum(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !alnum(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

func alnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
