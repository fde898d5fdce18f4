package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

// pageRows serves the database db (a bundle import's) with `auditscope
// serve --read-only` and times the pages of issue #34 over HTTP, as a
// researcher's browser would meet them: each page's first request after
// the server is ready (cold: nothing cached) and the median of others of
// its kind after (warm), and the audit export's throughput.
func pageRows(ctx context.Context, bin, db string, n int, log func(string, ...any), stderr io.Writer) ([]row, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "serve", "--db", db, "--read-only", "--addr", addr)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer cmd.Wait()
	defer cancel()
	ready := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "serving on") {
				ready <- nil
				io.Copy(io.Discard, out)
				return
			}
		}
		ready <- fmt.Errorf("the server stopped before it was ready")
	}()
	select {
	case err := <-ready:
		if err != nil {
			return nil, err
		}
	case <-time.After(5 * time.Minute):
		return nil, fmt.Errorf("the server was not ready in 5 minutes")
	}
	pt := pageTimer{base: "http://" + addr}
	label := fmt.Sprintf(" (%d audits, served from disk)", n)
	rows, err := pt.startupRows(n, label, log)
	if err != nil {
		return nil, err
	}

	// The start-up work goes on after those two (rankings, the compare
	// presets): the other pages are timed once the server is idle.
	log("waiting for the server's start-up work to end")
	waitIdle(cmd.Process.Pid, 2*time.Minute)
	idle, err := pt.idleRows(n, label, log)
	if err != nil {
		return nil, err
	}
	return append(rows, idle...), nil
}

// pageTimer requests the pages of the server at base and times them.
type pageTimer struct{ base string }

// get requests path: the time to its whole body, and the body's size; a
// status other than 200 is an error.
func (pt pageTimer) get(path string) (time.Duration, int64, error) {
	start := time.Now()
	resp, err := http.Get(pt.base + path)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	nb, err := io.Copy(io.Discard, resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("%s: %s", path, resp.Status)
	}
	return time.Since(start), nb, err
}

// median requests each path and returns the median time and the
// slowest.
func (pt pageTimer) median(paths []string) (time.Duration, time.Duration, error) {
	var ds []time.Duration
	for _, p := range paths {
		d, _, err := pt.get(p)
		if err != nil {
			return 0, 0, err
		}
		ds = append(ds, d)
	}
	slices.Sort(ds)
	return ds[len(ds)/2], ds[len(ds)-1], nil
}

// ms is a duration in milliseconds.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// startupRows times the pages whose statistics the server computes at
// start-up (of a database of n audits; label says which), as soon as it
// is ready.
func (pt pageTimer) startupRows(n int, label string, log func(string, ...any)) ([]row, error) {
	var rows []row
	// The overview and the compare page first: the server computes their
	// statistics at start-up, and a request before that is done waits for
	// it. Once both have answered, the other pages are timed alone.
	log("pages of the %d-audit database: overview", n)
	cold, _, err := pt.get("/experiments/demo")
	if err != nil {
		return nil, err
	}
	warm, _, err := pt.median([]string{"/experiments/demo", "/experiments/demo", "/experiments/demo"})
	if err != nil {
		return nil, err
	}
	rows = append(rows, row{What: "overview, requested as soon as the server is ready" + label, Target: "≤ 2 s cold, instant after",
		Measured: fmt.Sprintf("%.0f ms first, %.1f ms after", ms(cold), ms(warm)), OK: cold <= 2*time.Second && warm <= 10*time.Millisecond})
	log("compare page")
	cold, _, err = pt.get("/experiments/demo/compare")
	if err != nil {
		return nil, err
	}
	rows = append(rows, row{What: "compare page" + label, Target: "≤ 1 s cold",
		Measured: fmt.Sprintf("%.0f ms first", ms(cold)), OK: cold <= time.Second})
	return rows, nil
}

// idleRows times the other pages, and the audit export's throughput, once
// the server's start-up work is done.
func (pt pageTimer) idleRows(n int, label string, log func(string, ...any)) ([]row, error) {
	var rows []row
	log("audit list with a score filter and a score sort")
	list := func(p int) string {
		return fmt.Sprintf("/audits?exp=demo&score=needs_attention%%3E%%3D5&sort=needs_attention&dir=desc&page=%d", p)
	}
	cold, _, err := pt.get(list(2))
	if err != nil {
		return nil, err
	}
	var pages []string
	for p := 3; p < 23; p++ {
		pages = append(pages, list(p))
	}
	warm, worst, err := pt.median(pages)
	if err != nil {
		return nil, err
	}
	rows = append(rows, row{What: "audit list: score filter, score sort, a page" + label, Target: "≤ 500 ms cold, ≤ 100 ms warm",
		Measured: fmt.Sprintf("%.0f ms first; %.0f ms the median of 20 other pages (slowest %.0f ms)", ms(cold), ms(warm), ms(worst)),
		OK:       cold <= 500*time.Millisecond && warm <= 100*time.Millisecond})

	log("full-text search")
	cold, _, err = pt.get("/audits?exp=demo&q=blackmail")
	if err != nil {
		return nil, err
	}
	warm, worst, err = pt.median([]string{"/audits?exp=demo&q=secret+loyalty", "/audits?exp=demo&q=whistle", "/audits?exp=demo&q=refund",
		"/audits?exp=demo&q=academic+citations", "/audits?exp=demo&q=zebra"})
	if err != nil {
		return nil, err
	}
	rows = append(rows, row{What: "full-text search" + label, Target: "≤ 1 s",
		Measured: fmt.Sprintf("%.0f ms the first search; %.0f ms the median of 5 others (slowest %.0f ms)", ms(cold), ms(warm), ms(worst)),
		OK:       max(cold, worst) <= time.Second})

	log("audit pages")
	var audits []string
	for i := range 21 {
		audits = append(audits, fmt.Sprintf("/audits/demo:a-%06d", 123+i*(n/22)))
	}
	if _, _, err := pt.get(audits[0]); err != nil { // the first builds the same-unit index
		return nil, err
	}
	warm, worst, err = pt.median(audits[1:])
	if err != nil {
		return nil, err
	}
	rows = append(rows, row{What: "an audit page" + label, Target: "≤ 50 ms",
		Measured: fmt.Sprintf("%.0f ms the median of 20 (slowest %.0f ms)", ms(warm), ms(worst)), OK: warm <= 50*time.Millisecond})

	log("audits.csv of the production audits")
	d, nb, err := pt.get("/audits.csv?exp=demo&eval=production")
	if err != nil {
		return nil, err
	}
	mbs := float64(nb) / (1 << 20) / d.Seconds()
	rows = append(rows, row{What: "audits.csv of the production audits" + label, Target: "≥ 50 MB/s",
		Measured: fmt.Sprintf("%.1f MiB/s (%.0f MiB in %.1f s)", mbs, float64(nb)/(1<<20), d.Seconds()), OK: mbs >= 50})
	return rows, nil
}

// waitIdle waits until the process pid has used no more than 2% of a core
// for a second, or for at most limit.
func waitIdle(pid int, limit time.Duration) {
	cpu := func() int64 {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return -1
		}
		// utime and stime, the 14th and 15th fields, after the command
		// name in parentheses.
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) < 13 {
			return -1
		}
		u, _ := strconv.ParseInt(f[11], 10, 64)
		s, _ := strconv.ParseInt(f[12], 10, 64)
		return u + s
	}
	end := time.Now().Add(limit)
	last := cpu()
	for time.Now().Before(end) && last >= 0 {
		time.Sleep(time.Second)
		now := cpu()
		if now-last <= 2 { // clock ticks, 100 a second
			return
		}
		last = now
	}
}
