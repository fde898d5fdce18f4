// Command loadgen is auditscope's loopback load generator for `task bench`:
// N concurrent clients request a mix of light and heavy paths from a local
// server, bounded in time and in number of requests, then it prints latency
// percentiles per class, the 503 refusals apart from other errors, and,
// given the server's PID, its resident memory during and after the run. It
// refuses any host but the loopback, and its connections can reach nothing
// else (not through a redirect, a proxy or a name that resolves elsewhere).
package main

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

// Config is one load run.
type Config struct {
	Base         string   // server URL, loopback only
	Light, Heavy []string // paths of each class, requested in turn
	// HeavyShare is the fraction of requests that go to heavy paths (0–1);
	// it is ignored when either list is empty.
	HeavyShare  float64
	Clients     int
	Duration    time.Duration
	MaxRequests int
	Timeout     time.Duration // per request
	// Bust adds a unique query parameter to every heavy request, so the
	// server's response cache cannot answer it and each one is computed.
	Bust bool
	// Addresses sends each client's requests from a loopback address of
	// its own (127.1.x.y), as different people's would come: the server
	// shares its heavy work by client address.
	Addresses bool
	// Slow clients each download SlowPath (a full export) once, reading at
	// most SlowRate bytes a second, as people on an ordinary connection do;
	// a download may outlast the run, which waits for it.
	Slow     int
	SlowPath string
	SlowRate int64
	// RetryAfter makes a client that is refused (503) wait the response's
	// Retry-After before its next request, as the server's error page does;
	// without it a refused client asks again at once.
	RetryAfter bool
}

// SlowResult is what the slow downloads measured: how many started and
// how many were read whole (a 200 to the end).
type SlowResult struct {
	Started, Complete, Errors int
	Bytes                     int64
	Max                       time.Duration // the longest complete download
}

// Class is what one class of paths measured. Refused counts 503 answers
// (the server shedding load, as designed); Errors counts everything else
// that is not 2xx, and transport errors and timeouts.
type Class struct {
	Requests, Errors, Refused int
	P50, P90, P99, Max        time.Duration
	// ServedP50 and ServedP99 are over the 2xx answers only.
	ServedP50, ServedP99 time.Duration
}

// Result is what one load run measured.
type Result struct {
	Class              // all requests
	Light, Heavy Class // by class
	Slow         SlowResult
	Elapsed      time.Duration
	// Served is how many requests each client had answered with a 2xx, at
	// its least, median and most: how evenly the server shared its work.
	Served struct{ Min, Median, Max int }
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	base := fs.String("base", "http://127.0.0.1:8080", "server `URL` (loopback only)")
	clients := fs.Int("c", 50, "concurrent `clients`")
	dur := fs.Duration("d", 30*time.Second, "run `duration`")
	maxReq := fs.Int("n", 200000, "stop after this many `requests` in all")
	paths := fs.String("paths", "/,/audits?exp=demo&eval=production&sort=turns&dir=desc,/audits/demo:a-000001", "comma-separated light `paths` requested in turn")
	heavy := fs.String("heavy", "/experiments/demo,/experiments/demo/figures/scores.svg,/pairs/synthetic-personality-demo", "comma-separated heavy `paths` (figures, explorer, statistics, CSV exports) requested in turn, @FILE of paths one per line, or cold: pages of the demo no one asked for yet (compare pages and figures of random pairs of auditors, the explorer against each annotator, the audit list sorted by each score)")
	share := fs.Float64("heavy-share", 0.2, "`fraction` of requests sent to the heavy paths")
	bust := fs.Bool("bust", false, "make every heavy request miss the server's response cache")
	timeout := fs.Duration("timeout", 30*time.Second, "per-request `timeout` (a timeout counts as an error)")
	addrs := fs.Bool("addresses", false, "send each client's requests from a loopback address of its own, as different people's")
	slow := fs.Int("slow", 0, "`clients` that download -slow-path at -slow-rate for the whole run, besides the others")
	slowPath := fs.String("slow-path", "/audits.csv?exp=demo", "the `path` the slow clients download")
	slowRate := fs.Int64("slow-rate", 1<<20, "bytes a second each slow client reads (`B/s`)")
	retryAfter := fs.Bool("retry-after", false, "a refused client waits the 503's Retry-After before asking again (as the server's error page does)")
	pid := fs.Int("pid", 0, "server `PID` whose resident memory (VmRSS, VmHWM) is sampled")
	after := fs.Duration("after", 20*time.Second, "with -pid, how long after the run to sample the resident memory again")
	if err := fs.Parse(args); err != nil {
		return err
	}
	heavyPaths := splitPaths(*heavy)
	if *heavy == "cold" {
		var err error
		if heavyPaths, err = coldPaths(ctx, *base, 4000); err != nil {
			return err
		}
	} else if file, ok := strings.CutPrefix(*heavy, "@"); ok {
		b, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		heavyPaths = strings.Fields(string(b))
	}
	cfg := Config{Base: *base, Light: splitPaths(*paths), Heavy: heavyPaths, HeavyShare: *share,
		Clients: *clients, Duration: *dur, MaxRequests: *maxReq, Timeout: *timeout, Bust: *bust,
		Addresses: *addrs, Slow: *slow, SlowPath: *slowPath, SlowRate: *slowRate, RetryAfter: *retryAfter}
	var mem *memSampler
	if *pid > 0 {
		if _, err := readMem(*pid); err != nil {
			return err
		}
		mem = startMemSampler(*pid, 100*time.Millisecond)
	}
	res, err := Load(ctx, cfg)
	var during memStats
	if mem != nil {
		during = mem.stop()
	}
	if err != nil {
		return err
	}
	// The first line keeps the format tools/benchtable parses.
	fmt.Fprintf(stdout, "requests %d errors %d refused(503) %d in %s (%.0f req/s): p50 %s p90 %s p99 %s max %s\n",
		res.Requests, res.Errors, res.Refused, res.Elapsed.Round(time.Millisecond), float64(res.Requests)/res.Elapsed.Seconds(),
		ms(res.P50), ms(res.P90), ms(res.P99), ms(res.Max))
	for _, c := range []struct {
		name string
		c    Class
	}{{"light", res.Light}, {"heavy", res.Heavy}} {
		if c.c.Requests == 0 {
			continue
		}
		fmt.Fprintf(stdout, "  %s: requests %d errors %d refused(503) %d: p50 %s p90 %s p99 %s max %s; served (2xx) p50 %s p99 %s\n",
			c.name, c.c.Requests, c.c.Errors, c.c.Refused, ms(c.c.P50), ms(c.c.P90), ms(c.c.P99), ms(c.c.Max), ms(c.c.ServedP50), ms(c.c.ServedP99))
	}
	fmt.Fprintf(stdout, "  pages served per client: min %d, median %d, max %d\n", res.Served.Min, res.Served.Median, res.Served.Max)
	if cfg.Slow > 0 {
		fmt.Fprintf(stdout, "  slow downloads of %s at %d B/s: %d started, %d complete, %d errors, %.1f MB read, longest complete %s\n",
			cfg.SlowPath, cfg.SlowRate, res.Slow.Started, res.Slow.Complete, res.Slow.Errors, float64(res.Slow.Bytes)/1e6, res.Slow.Max.Round(time.Millisecond))
	}
	if mem != nil {
		fmt.Fprintf(stdout, "server RSS during the run: max %s MiB (VmHWM %s MiB at the end)\n", mib(during.rssKB), mib(during.hwmKB))
		if *after > 0 {
			select {
			case <-time.After(*after):
			case <-ctx.Done():
				return ctx.Err()
			}
			m, err := readMem(*pid)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "server RSS %s after the run: %s MiB (VmHWM %s MiB)\n", *after, mib(m.rssKB), mib(m.hwmKB))
		}
	}
	return nil
}

func splitPaths(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64) + "ms"
}

func mib(kb int64) string { return strconv.FormatFloat(float64(kb)/1024, 'f', 0, 64) }

// Load runs the clients and returns the latency distributions.
func Load(ctx context.Context, cfg Config) (Result, error) {
	share, err := checkConfig(&cfg)
	if err != nil {
		return Result{}, err
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, cfg.Duration)
	defer cancel()
	shared := newClient(-1, cfg)
	defer shared.CloseIdleConnections()
	clientFor := func(i int) *http.Client {
		if !cfg.Addresses {
			return shared
		}
		return newClient(i, cfg)
	}
	slow := startSlow(parent, cfg, clientFor)

	var mu sync.Mutex
	var samples []sample
	var sent, nLight, nHeavy int
	var wg sync.WaitGroup
	start := time.Now()
	for i := range cfg.Clients {
		client := clientFor(i)
		wg.Go(func() {
			var wait time.Duration // the last refusal's Retry-After
			for ctx.Err() == nil {
				if wait > 0 {
					select {
					case <-ctx.Done():
						return
					case <-time.After(wait):
					}
					wait = 0
				}
				mu.Lock()
				if sent >= cfg.MaxRequests {
					mu.Unlock()
					return
				}
				// Requests are dealt in turn across all clients, so each
				// path gets its share whatever its latency; request i is
				// heavy when it takes the count of heavy ones past a whole
				// number.
				heavy := int(float64(sent+1)*share) > int(float64(sent)*share)
				var p string
				if heavy {
					p = cfg.Heavy[nHeavy%len(cfg.Heavy)]
					if cfg.Bust {
						p = bustCache(p, nHeavy)
					}
					nHeavy++
				} else {
					p = cfg.Light[nLight%len(cfg.Light)]
					nLight++
				}
				sent++
				mu.Unlock()
				t0 := time.Now()
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, cfg.Base+p, nil)
				resp, err := client.Do(req)
				status := 0
				if err == nil {
					status = resp.StatusCode
					if n, err := strconv.Atoi(resp.Header.Get("Retry-After")); cfg.RetryAfter && status == http.StatusServiceUnavailable && err == nil {
						wait = time.Duration(n) * time.Second
					}
					if _, err = io.Copy(io.Discard, resp.Body); err != nil {
						status = 0
					}
					resp.Body.Close()
				}
				d := time.Since(t0)
				if ctx.Err() != nil && err != nil {
					return // the run ended mid-request; not an error of the server
				}
				mu.Lock()
				samples = append(samples, sample{d: d, heavy: heavy, ok: status/100 == 2, rf: status == http.StatusServiceUnavailable, client: i})
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	res := Result{Elapsed: time.Since(start)}
	res.Slow = slow.wait()
	if len(samples) == 0 {
		return res, errors.New("no request completed")
	}
	res.summarize(samples, cfg.Clients)
	return res, nil
}

// checkConfig checks cfg (its base URL first: http, on the loopback) and
// sets its defaults (Timeout), and returns the share of requests that go
// to heavy paths: HeavyShare, unless one of the classes has no paths.
func checkConfig(cfg *Config) (float64, error) {
	u, err := url.Parse(cfg.Base)
	if err != nil {
		return 0, err
	}
	if u.Scheme != "http" {
		return 0, fmt.Errorf("want an http:// base URL, found %q", cfg.Base)
	}
	if err := checkLoopback(u.Hostname()); err != nil {
		return 0, err
	}
	if cfg.Clients < 1 || cfg.Clients > 1000 || cfg.Duration <= 0 || cfg.Duration > 10*time.Minute || cfg.MaxRequests < 1 {
		return 0, errors.New("want 1–1000 clients, a duration up to 10 minutes and at least one request")
	}
	if len(cfg.Light)+len(cfg.Heavy) == 0 {
		return 0, errors.New("no paths to request")
	}
	if cfg.HeavyShare < 0 || cfg.HeavyShare > 1 {
		return 0, errors.New("want a heavy share from 0 to 1")
	}
	share := cfg.HeavyShare
	switch {
	case len(cfg.Heavy) == 0:
		share = 0
	case len(cfg.Light) == 0:
		share = 1
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.Slow < 0 || cfg.Slow > 100 || cfg.Slow > 0 && (cfg.SlowPath == "" || cfg.SlowRate < 1) {
		return 0, errors.New("want 0–100 slow clients, a path and a positive rate")
	}
	return share, nil
}

// slowRun is a load run's slow downloads (Config.Slow), each on a
// goroutine of its own.
type slowRun struct {
	mu  sync.Mutex
	wg  sync.WaitGroup
	res SlowResult
}

// startSlow starts cfg.Slow slow downloads, the i-th with the client
// clientFor(cfg.Clients+i). ctx is the caller's, not the run's: a download
// may outlast the run.
func startSlow(ctx context.Context, cfg Config, clientFor func(int) *http.Client) *slowRun {
	s := &slowRun{}
	for i := range cfg.Slow {
		c := clientFor(cfg.Clients + i)
		s.wg.Go(func() {
			n, d, ok := slowGet(ctx, c, cfg.Base+cfg.SlowPath, cfg.SlowRate)
			s.mu.Lock()
			defer s.mu.Unlock()
			s.res.Started++
			s.res.Bytes += n
			if ok {
				s.res.Complete++
				s.res.Max = max(s.res.Max, d)
			} else {
				s.res.Errors++
			}
		})
	}
	return s
}

// wait waits for the slow downloads to end and returns what they measured.
func (s *slowRun) wait() SlowResult {
	s.wg.Wait()
	return s.res
}

// sample is one request of a load run: how long it took, its class, whether
// it was served (2xx) or refused (503), and its client.
type sample struct {
	d             time.Duration
	heavy, ok, rf bool
	client        int
}

// summarize sets res's classes (all the requests, the light, the heavy)
// and how many requests each of the clients had served, from samples.
func (res *Result) summarize(samples []sample, clients int) {
	summarize := func(keep func(sample) bool) Class {
		var c Class
		var all, served []time.Duration
		for _, s := range samples {
			if !keep(s) {
				continue
			}
			c.Requests++
			all = append(all, s.d)
			switch {
			case s.ok:
				served = append(served, s.d)
			case s.rf:
				c.Refused++
			default:
				c.Errors++
			}
		}
		c.P50, c.P90, c.P99, c.Max = quantile(all, 0.50), quantile(all, 0.90), quantile(all, 0.99), quantile(all, 1)
		c.ServedP50, c.ServedP99 = quantile(served, 0.50), quantile(served, 0.99)
		return c
	}
	res.Class = summarize(func(sample) bool { return true })
	served := make([]int, clients)
	for _, s := range samples {
		if s.ok {
			served[s.client]++
		}
	}
	slices.Sort(served)
	res.Served.Min, res.Served.Median, res.Served.Max = served[0], served[len(served)/2], served[len(served)-1]
	res.Light = summarize(func(s sample) bool { return !s.heavy })
	res.Heavy = summarize(func(s sample) bool { return s.heavy })
}

// coldPaths are n heavy pages of the built-in demo that are each computed
// afresh: compare pages and their figures for pairs of auditors, the
// explorer of a dataset against each of its annotators (a new bootstrap
// each), and the audit list sorted by each judge score. The ids come from
// the server's own CSVs; the order is fixed (seeded), so runs compare.
func coldPaths(ctx context.Context, base string, n int) ([]string, error) {
	c := newClient(-1, Config{Clients: 1, Timeout: time.Minute})
	defer c.CloseIdleConnections()
	column := func(path, col string) ([]string, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
		resp, err := c.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("%s: %s (is this the built-in demo?)", path, resp.Status)
		}
		recs, err := csv.NewReader(resp.Body).ReadAll()
		if err != nil || len(recs) < 2 {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		i := slices.Index(recs[0], col)
		if i < 0 {
			return nil, fmt.Errorf("%s has no column %s", path, col)
		}
		var out []string
		for _, r := range recs[1:] {
			if !slices.Contains(out, r[i]) {
				out = append(out, r[i])
			}
		}
		return out, nil
	}
	auditors, err := column("/experiments/demo/scores.csv", "auditor")
	if err != nil {
		return nil, err
	}
	annotators, err := column("/pairs/synthetic-personality-demo/annotators.csv", "annotator")
	if err != nil {
		return nil, err
	}
	dims := []string{"concerning", "needs_attention", "disappointing", "admirable", "unprompted_deception_toward_user", "cooperation_with_human_misuse"}
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]string, 0, n)
	for i := 0; len(out) < n; i++ {
		a, b := auditors[r.IntN(len(auditors))], auditors[r.IntN(len(auditors))]
		if a == b {
			continue
		}
		q := url.Values{"a": {a}, "b": {b}}.Encode()
		switch i % 4 {
		case 0:
			out = append(out, "/experiments/demo/compare?"+q)
		case 1:
			out = append(out, "/experiments/demo/figures/compare.svg?"+q)
		case 2:
			out = append(out, "/pairs/synthetic-personality-demo?"+url.Values{"ref": {annotators[r.IntN(len(annotators))]}}.Encode())
		default:
			out = append(out, "/audits?exp=demo&dir=desc&sort=score:"+dims[r.IntN(len(dims))]+"&page="+strconv.Itoa(1+r.IntN(50)))
		}
	}
	return out, nil
}

// slowGet downloads url reading at most rate bytes a second; ok is true
// for a 200 read to its end.
func slowGet(ctx context.Context, c *http.Client, url string, rate int64) (n int64, d time.Duration, ok bool) {
	t0 := time.Now()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	// A download takes as long as it takes: no client timeout.
	resp, err := (&http.Client{Transport: c.Transport}).Do(req)
	if err != nil {
		return 0, time.Since(t0), false
	}
	defer resp.Body.Close()
	buf := make([]byte, 32<<10)
	for {
		m, err := resp.Body.Read(buf)
		n += int64(m)
		if err == io.EOF {
			return n, time.Since(t0), resp.StatusCode == http.StatusOK
		}
		if err != nil {
			return n, time.Since(t0), false
		}
		// Sleep until n bytes are due at the rate.
		if due := t0.Add(time.Duration(float64(n) / float64(rate) * float64(time.Second))); time.Until(due) > 0 {
			select {
			case <-ctx.Done():
				return n, time.Since(t0), false
			case <-time.After(time.Until(due)):
			}
		}
	}
}

// quantile sorts d and returns its p-quantile (0 when d is empty).
func quantile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[min(len(d)-1, int(p*float64(len(d))))]
}

// bustCache adds a query parameter unique to request n.
func bustCache(p string, n int) string {
	sep := "?"
	if strings.Contains(p, "?") {
		sep = "&"
	}
	return p + sep + "loadgen=" + strconv.Itoa(n)
}
