// Command gensets builds the retrieval test sets of kb/beir/testdata from
// text installed on the machine that Moteur's developers did not write: the
// manual pages (their NAME lines as queries against their DESCRIPTION
// sections, in English and in the translated pages) and the Go
// documentation (its headings as queries against the sections they head).
//
// The output depends only on the files read: they are walked in sorted
// order, sampled by a hash of their path, and written in that order, so a
// second run on the same machine writes the same bytes.
//
//	go run ./kb/beir/internal/gensets -out kb/beir/testdata
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

func main() {
	out := flag.String("out", "kb/beir/testdata", "directory that receives one directory per set")
	man := flag.String("man", "/usr/share/man", "root of the manual pages")
	goroot := flag.String("goroot", runtime.GOROOT(), "root of the Go installation whose documentation is read")
	flag.Parse()
	if err := run(*out, *man, *goroot); err != nil {
		fmt.Fprintln(os.Stderr, "gensets:", err)
		os.Exit(1)
	}
}

func run(out, man, goroot string) error {
	sets := []struct {
		name string
		make func() (set, error)
	}{
		{"man-en", func() (set, error) { return manSet(man, englishManDirs, englishSample) }},
		{"man-i18n", func() (set, error) { return manSet(man, translatedManDirs, 1) }},
		{"go-doc", func() (set, error) { return goDocSet(goroot) }},
	}
	for _, s := range sets {
		st, err := s.make()
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		if err := st.write(filepath.Join(out, s.name)); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		fmt.Printf("%s: %d documents, %d queries\n", s.name, len(st.docs), len(st.queries))
	}
	return nil
}
