package main

import "testing"

// TestWebFlagsSpeakTheRunsLanguage: --web with --no-web is a usage error
// in the run's language, and the help of run, chat and ask names both.
func TestWebFlagsSpeakTheRunsLanguage(t *testing.T) {
	for cmd, args := range map[string][]string{"run": {"x"}, "chat": nil, "ask": {"x"}} {
		langCase{
			args: append([]string{cmd, "--web", "--no-web"}, args...),
			en:   "--web and --no-web contradict each other: give one of them", fr: "--web et --no-web se contredisent : donnez l'un des deux",
			help:   []string{cmd},
			helpEN: "offer no web tool for this run", helpFR: "ne proposer aucun outil web pour cette exécution",
		}.check(t)
	}
}
