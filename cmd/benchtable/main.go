// Command benchtable runs auditscope's speed checks and prints them beside
// their targets (docs/PERFORMANCE.md). `task bench` runs it. It builds the
// inputs, times a real `auditscope import` (wall and peak RSS), times the
// demo's start to its first page, runs the Go benchmarks, and runs the
// loopback load generator against a demo server.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
}

// row is one line of the table.
type row struct {
	What, Target, Measured string
	OK                     bool
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("benchtable", flag.ContinueOnError)
	out := fs.String("out", "bench-out", "`folder` for inputs, binaries and results")
	n := fs.Int("n", 53000, "comparisons in the AnnotatedPairs input (53,000 make a 150 MB file)")
	audits := fs.Int("audits", 100000, "audits in the scaled experiment")
	loadFor := fs.Duration("load", 30*time.Second, "duration of the load run")
	clients := fs.Int("clients", 50, "concurrent clients of the load run")
	benchtime := fs.String("benchtime", "10x", "go test -benchtime for the benchmarks")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	log := func(format string, a ...any) { fmt.Fprintf(stderr, "· "+format+"\n", a...) }

	bin := filepath.Join(*out, "auditscope")
	loadgen := filepath.Join(*out, "loadgen")
	log("building auditscope and loadgen")
	if err := runCmd(ctx, stderr, nil, "go", "build", "-o", bin, "./cmd/auditscope"); err != nil {
		return err
	}
	if err := runCmd(ctx, stderr, nil, "go", "build", "-o", loadgen, "./cmd/loadgen"); err != nil {
		return err
	}
	ap, err := filepath.Abs(filepath.Join(*out, fmt.Sprintf("ap-%d-40-5.json", *n)))
	if err != nil {
		return err
	}
	if _, err := os.Stat(ap); err != nil {
		log("writing %s with auditscope demo --pairs", ap)
		if err := runCmd(ctx, stderr, nil, bin, "demo", "--pairs", strconv.Itoa(*n), "--traits", "40", "--seed", "5", "--out", ap); err != nil {
			return fmt.Errorf("generate the input: %w", err)
		}
	}
	var rows []row

	// 1. auditscope import of the file: wall time, peak RSS (the kernel's
	// high-water mark, which counts the ~50 MB of program code mapped from
	// the binary) and the peak of allocated memory (RssAnon, sampled).
	db := filepath.Join(*out, "import.duckdb")
	os.Remove(db)
	os.Remove(db + ".wal")
	st, err := os.Stat(ap)
	if err != nil {
		return err
	}
	fileMB := float64(st.Size()) / (1 << 20)
	log("auditscope import %s", ap)
	t0 := time.Now()
	cmd := exec.CommandContext(ctx, bin, "import", "--db", db, ap)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	anonc := make(chan float64, 1)
	go func() { anonc <- peakAnonMB(cmd.Process.Pid) }()
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	wall := time.Since(t0)
	anon := <-anonc
	rss := float64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) / 1024
	rows = append(rows, row{fmt.Sprintf("auditscope import (%d comparisons × 40 traits, %.0f MiB)", *n, fileMB),
		"≤ 2.5 s, peak RSS ≤ 300 MB and well under the file's size",
		fmt.Sprintf("%.2f s, peak RSS %.0f MiB (%.0f%% of the file), allocated %.0f MiB", wall.Seconds(), rss, 100*rss/fileMB, anon),
		wall <= 2500*time.Millisecond && rss <= 300 && rss <= 0.9*fileMB})

	// 2. Go benchmarks.
	log("go test -bench (this takes a few minutes)")
	var bench bytes.Buffer
	env := append(os.Environ(), "AUDITSCOPE_BENCH_AP="+ap, "AUDITSCOPE_BENCH_AUDITS="+strconv.Itoa(*audits))
	err = runCmd(ctx, io.MultiWriter(&bench, stderr), env, "go", "test", "-run", "^$", "-bench",
		"PairsTable|PairsSplit|PairsBootstrap|AuditBrowser100k|AuditScoreFilter100k|Search100k|Overview100k|Figures100k|AuditPage100k|CompareCold100k|CompareCached100k|AuditBrowser100kLake|AuditScoreFilter100kLake|Overview100kLake|PairsTableLake",
		"-benchtime", *benchtime, "./web/")
	if err != nil {
		return fmt.Errorf("benchmarks: %w", err)
	}
	ns := parseBench(bench.String())
	add := func(what, target string, limit float64, names ...string) {
		worst := 0.0
		for _, name := range names {
			if v, ok := ns[name]; ok && v/1e6 > worst {
				worst = v / 1e6
			}
		}
		if worst == 0 {
			rows = append(rows, row{what, target, "not measured", false})
			return
		}
		rows = append(rows, row{what, target, fmt.Sprintf("%.1f ms", worst), worst <= limit})
	}
	add("metrics table, all annotators vs one reference", "≤ 50 ms", 50, "PairsTable")
	add("the same split by a metadata column (4 values)", "≤ 100 ms", 100, "PairsSplit")
	add("bootstrap on strength, all annotators, 1,000 resamples (cold; cached after)", "≤ 1 s", 1000, "PairsBootstrap")
	add(fmt.Sprintf("audit browser filter + sort + page (%d audits)", *audits), "≤ 100 ms", 100, "AuditBrowser100k", "AuditScoreFilter100k")
	add("full-text search over those transcripts", "≤ 300 ms", 300, "Search100k")
	add("experiment overview (cold statistics)", "≤ 200 ms", 200, "Overview100k")
	add("compare A with two auditors (statistics cached)", "≤ 200 ms", 200, "CompareCached100k")
	add("compare A with two auditors (cold)", "≤ 1 s", 1000, "CompareCold100k")
	// Pages from a Parquet lake against the same pages from the database.
	for _, p := range [][2]string{{"AuditBrowser100k", "audit browser"}, {"AuditScoreFilter100k", "audit browser, score threshold"},
		{"Overview100k", "experiment overview (cold)"}, {"PairsTable", "explorer table"}} {
		dbNS, lakeNS := ns[p[0]], ns[p[0]+"Lake"]
		if dbNS == 0 || lakeNS == 0 {
			rows = append(rows, row{p[1] + " from a lake", "≤ 2× the database", "not measured", false})
			continue
		}
		rows = append(rows, row{p[1] + " from a lake", "≤ 2× the database",
			fmt.Sprintf("%.1f ms (%.2f× the database's %.1f ms)", lakeNS/1e6, lakeNS/dbNS, dbNS/1e6), lakeNS <= 2*dbNS})
	}
	var figs []string
	for name := range ns {
		if strings.HasPrefix(name, "Figures100k/") {
			figs = append(figs, name)
		}
	}
	add("any experiment figure (SVG)", "≤ 200 ms", 200, figs...)

	// 3. Demo start to first page, then the load run against that server.
	port, err := freePort()
	if err != nil {
		return err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	log("demo start on %s", addr)
	t0 = time.Now()
	srv := exec.CommandContext(ctx, bin, "serve", "--addr", addr)
	srv.Stdout, srv.Stderr = io.Discard, io.Discard
	if err := srv.Start(); err != nil {
		return err
	}
	defer func() {
		srv.Process.Signal(syscall.SIGTERM)
		srv.Wait()
	}()
	if _, err := waitFirstPage(ctx, "http://"+addr+"/", 60*time.Second); err != nil {
		return err
	}
	start := time.Since(t0)
	rows = append(rows, row{"demo start to first page", "≤ 3 s", fmt.Sprintf("%.2f s", start.Seconds()), start <= 3*time.Second})
	log("load: %d clients for %s", *clients, *loadFor)
	var load bytes.Buffer
	err = runCmd(ctx, io.MultiWriter(&load, stderr), nil, loadgen, "-base", "http://"+addr, "-c", strconv.Itoa(*clients), "-d", loadFor.String(),
		"-paths", strings.Join(loadPaths(), ","))
	if err != nil {
		return fmt.Errorf("load run: %w", err)
	}
	p99, errs, line := parseLoad(load.String())
	rows = append(rows, row{fmt.Sprintf("%d concurrent clients for %s: overview, audit browser, audit page (81 URLs)", *clients, *loadFor), "p99 ≤ 250 ms, 0 errors",
		line, p99 <= 250*time.Millisecond && errs == 0})

	// The table.
	var table bytes.Buffer
	tw := tabwriter.NewWriter(&table, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "what\ttarget\tmeasured\tmet")
	for _, r := range rows {
		met := "yes"
		if !r.OK {
			met = "NO"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.What, r.Target, r.Measured, met)
	}
	tw.Flush()
	fmt.Fprint(stdout, table.String())
	return os.WriteFile(filepath.Join(*out, "results.txt"), append([]byte(time.Now().UTC().Format(time.RFC3339)+"\n"), table.Bytes()...), 0o644)
}

// loadPaths mixes the three page kinds over 81 distinct URLs: the
// overview, 20 pages of a filtered, sorted audit list, and 60 audits opened
// from it. The server's response cache serves repeats, as it would for a
// team looking at the same experiment; every URL is computed once.
func loadPaths() []string {
	const filter = "exp=demo&eval=production&sort=turns&dir=desc"
	paths := []string{"/experiments/demo"}
	for p := 1; p <= 20; p++ {
		paths = append(paths, fmt.Sprintf("/audits?%s&page=%d", filter, p))
	}
	for i := 1; i <= 60; i++ {
		paths = append(paths, fmt.Sprintf("/audits/demo:a-%06d?%s", 700+i*97, filter))
	}
	return paths
}

// peakAnonMB samples a running process's anonymous resident memory every
// millisecond until it exits and returns the largest sample, in MiB.
func peakAnonMB(pid int) float64 {
	path := fmt.Sprintf("/proc/%d/status", pid)
	var peak int64
	for {
		b, err := os.ReadFile(path)
		if err != nil {
			return float64(peak) / 1024
		}
		for line := range strings.Lines(string(b)) {
			if v, ok := strings.CutPrefix(line, "RssAnon:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
				peak = max(peak, kb)
			}
		}
		time.Sleep(time.Millisecond)
	}
}

func runCmd(ctx context.Context, w io.Writer, env []string, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = w, w
	if env != nil {
		cmd.Env = env
	}
	return cmd.Run()
}

var benchLine = regexp.MustCompile(`^Benchmark(\S+?)(-\d+)?\s+\d+\s+([0-9.]+) ns/op`)

// parseBench maps benchmark names (without "Benchmark" and the CPU suffix)
// to ns/op.
func parseBench(out string) map[string]float64 {
	res := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if m := benchLine.FindStringSubmatch(sc.Text()); m != nil {
			v, _ := strconv.ParseFloat(m[3], 64)
			res[m[1]] = v
		}
	}
	return res
}

var loadLine = regexp.MustCompile(`requests (\d+) errors (\d+) .* p99 (\S+) max`)

// parseLoad reads loadgen's summary line.
func parseLoad(out string) (time.Duration, int, string) {
	for _, l := range strings.Split(out, "\n") {
		if m := loadLine.FindStringSubmatch(l); m != nil {
			errs, _ := strconv.Atoi(m[2])
			p99, _ := time.ParseDuration(m[3])
			return p99, errs, strings.TrimSpace(l)
		}
	}
	return time.Hour, -1, "no result"
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// waitFirstPage polls url until it answers 200.
func waitFirstPage(ctx context.Context, url string, limit time.Duration) (time.Duration, error) {
	t0 := time.Now()
	for time.Since(t0) < limit {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return time.Since(t0), nil
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	return 0, errors.New("the demo server did not answer within a minute")
}
