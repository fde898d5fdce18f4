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
	if len(os.Args) == 4 && os.Args[1] == readJSONArg {
		if err := readJSON(os.Args[2], os.Args[3]); err != nil {
			fmt.Fprintln(os.Stderr, "benchtable read-json:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
}

// row is one line of the table.
type row struct {
	What, Target, Measured string
	OK                     bool
	NA                     bool // not measured here: neither met nor missed
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("benchtable", flag.ContinueOnError)
	out := fs.String("out", "bench-out", "`folder` for inputs, binaries and results")
	n := fs.Int("n", 50000, "comparisons in the AnnotatedPairs input (50,000 × 40 traits is issue #19's 138 MiB benchmark file)")
	audits := fs.Int("audits", 100000, "audits in the scaled experiment")
	loadFor := fs.Duration("load", 30*time.Second, "duration of the load run")
	clients := fs.Int("clients", 50, "concurrent clients of the load run")
	benchtime := fs.String("benchtime", "10x", "go test -benchtime for the benchmarks")
	runs := fs.Int("runs", 3, "import runs (the median is reported)")
	importOnly := fs.Bool("import-only", false, "time the import (and Feedback Forensics' load) only")
	pagesDB := fs.String("pages-db", "", "time only the pages of this `database` (a demo experiment's, as -bundle-only imports it) served from disk")
	bundleOnly := fs.Bool("bundle-only", false, "time the import of a demo bundle of -audits audits against DuckDB's read_json, and the pages of the database it makes, only")
	ffPython := fs.String("ff-python", "python3", "`python` that can import feedback_forensics (Feedback Forensics' loader is timed when it can)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *runs < 1 {
		return errors.New("-runs: want at least 1")
	}
	if err := prepare(out); err != nil {
		return err
	}
	log := func(format string, a ...any) { fmt.Fprintf(stderr, "· "+format+"\n", a...) }

	bin := filepath.Join(*out, "auditscope")
	loadgen := filepath.Join(*out, "loadgen")
	log("building auditscope and loadgen")
	if err := runCmd(ctx, stderr, nil, "go", "build", "-o", bin, "./cmd/auditscope"); err != nil {
		return err
	}
	if err := runCmd(ctx, stderr, nil, "go", "build", "-C", filepath.Join(productDir, "tools"), "-o", loadgen, "./loadgen"); err != nil {
		return err
	}
	if *pagesDB != "" {
		rows, err := pageRows(ctx, bin, *pagesDB, *audits, log, stderr)
		if err != nil {
			return fmt.Errorf("pages: %w", err)
		}
		return writeTable(stdout, *out, rows)
	}
	if *bundleOnly {
		rows, err := bundleRows(ctx, bin, *out, *audits, *runs, log, stderr)
		if err != nil {
			return err
		}
		// The pages of the database the last import made.
		pages, err := pageRows(ctx, bin, filepath.Join(*out, "bundle.duckdb"), *audits, log, stderr)
		if err != nil {
			return fmt.Errorf("pages: %w", err)
		}
		return writeTable(stdout, *out, append(rows, pages...))
	}
	ap, err := apInput(ctx, bin, *out, *n, log, stderr)
	if err != nil {
		return err
	}

	// 1. auditscope import of the file: wall time, peak RSS (the kernel's
	// high-water mark, which counts the ~50 MB of program code mapped from
	// the binary) and the peak of allocated memory (RssAnon, sampled); the
	// median of -runs runs. When Feedback Forensics is installed, its loader
	// is timed on the same file in the same run, turn about with ours.
	rows, err := importRows(ctx, bin, ap, *out, *n, *runs, *ffPython, log, stderr)
	if err != nil {
		return err
	}

	if *importOnly {
		return writeTable(stdout, *out, rows)
	}
	br, err := bundleRows(ctx, bin, *out, *audits, *runs, log, stderr)
	if err != nil {
		return err
	}
	rows = append(rows, br...)

	// 2. Go benchmarks.
	bench, err := benchRows(ctx, ap, *audits, *benchtime, log, stderr)
	if err != nil {
		return err
	}
	rows = append(rows, bench...)

	// 3. Demo start to first page, then the load run against that server.
	addr, start, stop, err := startDemo(ctx, bin, log)
	defer stop()
	if err != nil {
		return err
	}
	rows = append(rows, row{What: "demo start to first page", Target: "≤ 3 s", Measured: fmt.Sprintf("%.2f s", start.Seconds()), OK: start <= 3*time.Second})
	load, err := loadRow(ctx, loadgen, addr, *clients, *loadFor, log, stderr)
	if err != nil {
		return err
	}
	rows = append(rows, load)

	return writeTable(stdout, *out, rows)
}

// apInput is the AnnotatedPairs file of n comparisons × 40 traits in out,
// written by `auditscope demo --pairs` unless it is there from an earlier
// run.
func apInput(ctx context.Context, bin, out string, n int, log func(string, ...any), stderr io.Writer) (string, error) {
	ap, err := filepath.Abs(filepath.Join(out, fmt.Sprintf("ap-%d-40-5.json", n)))
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(ap); err != nil {
		log("writing %s with auditscope demo --pairs", ap)
		if err := runCmd(ctx, stderr, nil, bin, "demo", "--pairs", strconv.Itoa(n), "--traits", "40", "--seed", "5", "--out", ap); err != nil {
			return "", fmt.Errorf("generate the input: %w", err)
		}
	}
	return ap, nil
}

// importRows times the import of the AnnotatedPairs file ap (of n
// comparisons) into a database in out, runs times, and Feedback Forensics'
// load of it when ffPython can run its loader.
func importRows(ctx context.Context, bin, ap, out string, n, runs int, ffPython string, log func(string, ...any), stderr io.Writer) ([]row, error) {
	var rows []row
	st, err := os.Stat(ap)
	if err != nil {
		return nil, err
	}
	fileMB := float64(st.Size()) / (1 << 20)
	ffScript := filepath.Join(out, "ff_load.py")
	if err := os.WriteFile(ffScript, ffLoadPy, 0o644); err != nil {
		return nil, err
	}
	ffErr := ffAvailable(ctx, ffPython)
	if ffErr != nil {
		log("Feedback Forensics' loader is not measured: %v", ffErr)
	}
	var ours []importRun
	var ffs []ffRun
	for i := range runs {
		log("auditscope import %s (run %d of %d)", ap, i+1, runs)
		r, err := timeImport(ctx, bin, filepath.Join(out, "import.duckdb"), ap, stderr)
		if err != nil {
			return nil, err
		}
		ours = append(ours, r)
		if ffErr == nil {
			log("Feedback Forensics' loader on the same file (run %d of %d)", i+1, runs)
			f, err := timeFF(ctx, ffPython, ffScript, ap)
			if err != nil {
				return nil, err
			}
			ffs = append(ffs, f)
		}
	}
	imp := medianImport(ours)
	rows = append(rows, row{What: fmt.Sprintf("auditscope import (%d comparisons × 40 traits, %.0f MiB; median of %d)", n, fileMB, len(ours)),
		Target: "≤ 2.4 s (moonshot 1.5 s), peak RSS ≤ 300 MB",
		Measured: fmt.Sprintf("%.2f s (%.2f–%.2f), peak RSS %.0f MiB, allocated %.0f MiB (%.0f%% of the file)",
			imp.wall.Seconds(), ours[0].wall.Seconds(), ours[len(ours)-1].wall.Seconds(), imp.rssMB, imp.anonMB, 100*imp.anonMB/fileMB),
		OK: imp.wall <= 2400*time.Millisecond && imp.rssMB <= 300})
	const ffWhat = "import against Feedback Forensics' load of the same file"
	if ffErr != nil {
		rows = append(rows, row{What: ffWhat, Target: "≤ 50%", Measured: "not measured: " + ffErr.Error(), NA: true})
	} else {
		ff := medianFF(ffs)
		ratio := imp.wall.Seconds() / ff.Load
		rows = append(rows, row{What: ffWhat, Target: "≤ 50%",
			Measured: fmt.Sprintf("%.0f%%: %.2f s (the whole auditscope process) against %.2f s (its loader alone, Python started and pandas imported; %.2f s with them), %.0f MiB against %.0f MiB; it decoded JSON with %s",
				100*ratio, imp.wall.Seconds(), ff.Load, ff.wall.Seconds(), imp.rssMB, ff.RSS, ff.Decoder),
			OK: ratio <= 0.5})
	}
	return rows, nil
}

// benchRows runs the Go benchmarks of the web package (with
// -benchtime benchtime, on the AnnotatedPairs file ap and an experiment of
// audits audits) and compares their times with their targets.
func benchRows(ctx context.Context, ap string, audits int, benchtime string, log func(string, ...any), stderr io.Writer) ([]row, error) {
	var rows []row
	log("go test -bench (this takes a few minutes)")
	var bench bytes.Buffer
	env := append(os.Environ(), "AUDITSCOPE_BENCH_AP="+ap, "AUDITSCOPE_BENCH_AUDITS="+strconv.Itoa(audits))
	err := runCmd(ctx, io.MultiWriter(&bench, stderr), env, "go", "test", "-run", "^$", "-bench",
		"PairsTable|PairsSplit|PairsBootstrap|AuditBrowser100k|AuditScoreFilter100k|Search100k|Overview100k|Figures100k|AuditPage100k|CompareCold100k|CompareCached100k|AuditBrowser100kLake|AuditScoreFilter100kLake|Overview100kLake|PairsTableLake",
		"-benchtime", benchtime, "./web/")
	if err != nil {
		return nil, fmt.Errorf("benchmarks: %w", err)
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
			rows = append(rows, row{What: what, Target: target, Measured: "not measured"})
			return
		}
		rows = append(rows, row{What: what, Target: target, Measured: fmt.Sprintf("%.1f ms", worst), OK: worst <= limit})
	}
	add("metrics table, all annotators vs one reference", "≤ 50 ms", 50, "PairsTable")
	add("the same split by a metadata column (4 values)", "≤ 100 ms", 100, "PairsSplit")
	add("bootstrap on strength, all annotators, 1,000 resamples (cold; cached after)", "≤ 1 s", 1000, "PairsBootstrap")
	add(fmt.Sprintf("audit browser filter + sort + page (%d audits)", audits), "≤ 100 ms", 100, "AuditBrowser100k", "AuditScoreFilter100k")
	add("full-text search over those transcripts", "≤ 300 ms", 300, "Search100k")
	add("experiment overview (cold statistics)", "≤ 200 ms", 200, "Overview100k")
	add("compare A with two auditors (statistics cached)", "≤ 200 ms", 200, "CompareCached100k")
	add("compare A with two auditors (cold)", "≤ 1 s", 1000, "CompareCold100k")
	// Pages from a Parquet lake against the same pages from the database.
	for _, p := range [][2]string{{"AuditBrowser100k", "audit browser"}, {"AuditScoreFilter100k", "audit browser, score threshold"},
		{"Overview100k", "experiment overview (cold)"}, {"PairsTable", "explorer table"}} {
		dbNS, lakeNS := ns[p[0]], ns[p[0]+"Lake"]
		if dbNS == 0 || lakeNS == 0 {
			rows = append(rows, row{What: p[1] + " from a lake", Target: "≤ 2× the database", Measured: "not measured"})
			continue
		}
		rows = append(rows, row{What: p[1] + " from a lake", Target: "≤ 2× the database",
			Measured: fmt.Sprintf("%.1f ms (%.2f× the database's %.1f ms)", lakeNS/1e6, lakeNS/dbNS, dbNS/1e6), OK: lakeNS <= 2*dbNS})
	}
	var figs []string
	for name := range ns {
		if strings.HasPrefix(name, "Figures100k/") {
			figs = append(figs, name)
		}
	}
	add("any experiment figure (SVG)", "≤ 200 ms", 200, figs...)
	return rows, nil
}

// startDemo starts the demo (`auditscope serve` of no database) on a free
// port and waits for its first page: its address, the time from its start
// to that page, and stop, which ends the server (nothing to end when it
// did not start).
func startDemo(ctx context.Context, bin string, log func(string, ...any)) (addr string, start time.Duration, stop func(), err error) {
	stop = func() {}
	port, err := freePort()
	if err != nil {
		return "", 0, stop, err
	}
	addr = "127.0.0.1:" + strconv.Itoa(port)
	log("demo start on %s", addr)
	t0 := time.Now()
	srv := exec.CommandContext(ctx, bin, "serve", "--addr", addr)
	srv.Stdout, srv.Stderr = io.Discard, io.Discard
	if err := srv.Start(); err != nil {
		return "", 0, stop, err
	}
	stop = func() {
		srv.Process.Signal(syscall.SIGTERM)
		srv.Wait()
	}
	if _, err := waitFirstPage(ctx, "http://"+addr+"/", 60*time.Second); err != nil {
		return "", 0, stop, err
	}
	return addr, time.Since(t0), stop, nil
}

// loadRow runs the load generator loadgen against the server at addr with
// clients concurrent clients for loadFor, over loadPaths.
func loadRow(ctx context.Context, loadgen, addr string, clients int, loadFor time.Duration, log func(string, ...any), stderr io.Writer) (row, error) {
	log("load: %d clients for %s", clients, loadFor)
	var load bytes.Buffer
	err := runCmd(ctx, io.MultiWriter(&load, stderr), nil, loadgen, "-base", "http://"+addr, "-c", strconv.Itoa(clients), "-d", loadFor.String(),
		"-paths", strings.Join(loadPaths(), ","))
	if err != nil {
		return row{}, fmt.Errorf("load run: %w", err)
	}
	p99, errs, line := parseLoad(load.String())
	return row{What: fmt.Sprintf("%d concurrent clients for %s: overview, audit browser, audit page (81 URLs)", clients, loadFor), Target: "p99 ≤ 250 ms, 0 errors",
		Measured: line, OK: p99 <= 250*time.Millisecond && errs == 0}, nil
}

// writeTable prints the rows and keeps them, dated, in out/results.txt.
func writeTable(stdout io.Writer, out string, rows []row) error {
	var table bytes.Buffer
	tw := tabwriter.NewWriter(&table, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "what\ttarget\tmeasured\tmet")
	for _, r := range rows {
		met := "yes"
		switch {
		case r.NA:
			met = "n/a"
		case !r.OK:
			met = "NO"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.What, r.Target, r.Measured, met)
	}
	tw.Flush()
	fmt.Fprint(stdout, table.String())
	return os.WriteFile(filepath.Join(out, "results.txt"), append([]byte(time.Now().UTC().Format(time.RFC3339)+"\n"), table.Bytes()...), 0o644)
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

// prepare makes the output folder, its path absolute, and finds the
// product's folder: the builds and benchmarks run there, this command's
// module being its own (tools/).
func prepare(out *string) error {
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	abs, err := filepath.Abs(*out)
	if err != nil {
		return err
	}
	*out = abs
	if productDir == "" {
		productDir, err = findProduct()
	}
	return err
}

// productDir is the auditscope module's folder, where runCmd runs.
var productDir string

// findProduct finds the auditscope module's folder from the working one
// up: the folder whose go.mod declares it.
func findProduct() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(b), "module github.com/auditscope/auditscope\n") {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("not inside the auditscope repository: run benchtable from it (go tool task bench)")
		}
		dir = up
	}
}

func runCmd(ctx context.Context, w io.Writer, env []string, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = productDir
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
