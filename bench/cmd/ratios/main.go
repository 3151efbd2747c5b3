// Command ratios reads the output of the bench module's benchmarks (go
// test -bench, any number of -count runs, concatenated) and prints, for
// each benchmark, the median of each metric over the runs, then the ratio
// of Moteur's median to its peer's for every pair of benchmarks that
// differ only by the engine's name.
//
// Usage: go test -bench . ... | go run ./cmd/ratios
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// pairs are (Moteur, peer) engine names; a ratio above 1 means Moteur
// takes more (time, allocations) or, for MB/s, does more.
var pairs = [][2]string{
	{"moteur", "bleve"},
	{"moteur", "fts5-c"},
	{"moteur-raw", "fts5-c"},
	{"fts5-purego", "fts5-c"},
	{"moteur", "eino"},
}

// line is one benchmark result: "BenchmarkX/y-2  N  v unit  v unit …".
var line = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+(.*)$`)

func main() {
	if err := run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "ratios:", err)
		os.Exit(1)
	}
}

// results maps benchmark name → metric unit → values over the runs.
type results map[string]map[string][]float64

func parse(r io.Reader) (results, []string, error) {
	res := results{}
	var order []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		f := strings.Fields(m[2])
		if len(f)%2 != 0 {
			return nil, nil, fmt.Errorf("odd metrics in %q", sc.Text())
		}
		if res[m[1]] == nil {
			res[m[1]] = map[string][]float64{}
			order = append(order, m[1])
		}
		for i := 0; i < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, nil, fmt.Errorf("%q: %w", sc.Text(), err)
			}
			res[m[1]][f[i+1]] = append(res[m[1]][f[i+1]], v)
		}
	}
	return res, order, sc.Err()
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// units are the metrics printed, in this order, when a benchmark has them.
var units = []string{"ns/op", "p50-ms", "p95-ms", "MB/s", "allocs/op", "B/op", "ns/round"}

func run(r io.Reader, w io.Writer) error {
	res, order, err := parse(r)
	if err != nil {
		return err
	}
	if len(order) == 0 {
		return fmt.Errorf("no benchmark result in the input")
	}
	fmt.Fprintln(w, "Medians:")
	for _, name := range order {
		var parts []string
		for _, u := range units {
			if v, ok := res[name][u]; ok {
				parts = append(parts, fmt.Sprintf("%s %s", strconv.FormatFloat(median(v), 'g', 4, 64), u))
			}
		}
		fmt.Fprintf(w, "  %-36s n=%d  %s\n", name, len(res[name]["ns/op"]), strings.Join(parts, "  "))
	}
	fmt.Fprintln(w, "\nRatios (Moteur ÷ peer, medians):")
	for _, name := range order {
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			continue
		}
		prefix, engine := name[:i+1], name[i+1:]
		for _, p := range pairs {
			if engine != p[0] {
				continue
			}
			peer, ok := res[prefix+p[1]]
			if !ok {
				continue
			}
			var parts []string
			for _, u := range units {
				a, b := res[name][u], peer[u]
				if len(a) == 0 || len(b) == 0 || median(b) == 0 {
					continue
				}
				parts = append(parts, fmt.Sprintf("%s ×%.2f", u, median(a)/median(b)))
			}
			fmt.Fprintf(w, "  %-24s %s ÷ %s:  %s\n", prefix, p[0], p[1], strings.Join(parts, "  "))
		}
	}
	return nil
}
