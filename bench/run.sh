#!/bin/sh
# run.sh runs the side-by-side benchmarks interleaved — Moteur, its peer,
# Moteur, its peer… COUNT rounds, each benchmark in a process of its own —
# and prints the medians and the ratios (cmd/ratios).
#
#   ./run.sh                 # everything, COUNT=5
#   COUNT=3 ONLY=Turn ./run.sh
#
# Environment: COUNT (rounds, 5), ONLY (Search, Ingest or Turn: one group),
# SEARCHTIME (-benchtime of a search benchmark, 600x: each query twice),
# INGESTTIME (3x), TURNTIME (2s), OUT (the raw output, $TMPDIR/moteur-bench.out).
# The corpus and the indexes are built by the first round's processes and
# cached in $TMPDIR/moteur-bench.
set -eu
cd "$(dirname "$0")"
COUNT=${COUNT:-5}
SEARCHTIME=${SEARCHTIME:-600x}
INGESTTIME=${INGESTTIME:-3x}
TURNTIME=${TURNTIME:-2s}
OUT=${OUT:-${TMPDIR:-/tmp}/moteur-bench.out}
BIN=$(mktemp -d)/bench.test
GOFLAGS=-mod=mod go test -c -tags sqlite_fts5 -o "$BIN" .
trap 'rm -rf "$(dirname "$BIN")"' EXIT

one() { # one BENCH-REGEXP BENCHTIME
	"$BIN" -test.run '^$' -test.bench "$1" -test.benchtime "$2" -test.benchmem -test.count 1 -test.timeout 60m
}

# The caches first, outside the measure.
if [ "${ONLY:-Search}" = Search ]; then
	for size in 10k 100k; do
		one "^BenchmarkSearch/$size/(moteur|bleve)\$" 1x >/dev/null
	done
fi
if [ "${ONLY:-Ingest}" = Ingest ]; then one '^BenchmarkIngest/moteur$' 1x >/dev/null; fi

: >"$OUT"
i=0
while [ "$i" -lt "$COUNT" ]; do
	i=$((i + 1))
	echo "round $i of $COUNT" >&2
	if [ "${ONLY:-Search}" = Search ]; then
		for size in 10k 100k; do
			for engine in moteur bleve moteur-raw fts5-purego fts5-c; do
				one "^BenchmarkSearch/$size/$engine\$" "$SEARCHTIME" >>"$OUT"
			done
		done
	fi
	if [ "${ONLY:-Ingest}" = Ingest ]; then
		for engine in moteur bleve; do
			one "^BenchmarkIngest/$engine\$" "$INGESTTIME" >>"$OUT"
		done
	fi
	if [ "${ONLY:-Turn}" = Turn ]; then
		for engine in moteur eino; do
			one "^BenchmarkTurn/$engine\$" "$TURNTIME" >>"$OUT"
		done
	fi
done
GOFLAGS=-mod=mod go run ./cmd/ratios <"$OUT"
