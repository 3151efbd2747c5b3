// Package shellcmd owns Moteur's one reading of a shell command line: what
// bash would run if given it with `bash -c`. The permission rules (package
// policy) and the risk classes of the shell tool (package tools/shell) both
// judge commands from it, so that the two can never disagree about what a
// line does.
//
// Parse turns a line into the simple commands it would run — those inside
// $(…), backticks, <(…), subshells, groups, function bodies, if, while,
// for and case bodies and pipelines included — each with its assignments,
// its words, its redirections, whether the program it runs is computed at
// run time, and the commands it reaches through wrappers (env, sudo,
// xargs, find -exec, …) and through scripts given as text (bash -c, eval,
// trap, a here-document fed to a shell). The grammar is that of
// mvdan.cc/sh/v3/syntax in its bash dialect; this package only interprets
// the syntax tree.
//
// Where the reading cannot be certain, it says so rather than guess: a line
// that does not parse is an error (and the policy lets no allow rule cover
// it), and a command whose program or code is only known at run time
// carries a Computed reason (the shell tool then asks the user in every
// mode). It also classes commands (Class: probe, write, destructive) and
// environment variable names (Env), the two other judgements the policy and
// the tool share.
//
// The package is a leaf: it imports nothing of Moteur's and touches no file;
// the one check that needs the file system (does a redirection overwrite an
// existing file?) is asked of the caller.
package shellcmd
