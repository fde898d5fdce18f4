// Command loadgen is auditscope's loopback load generator for `task bench`:
// N concurrent clients request a list of paths from a local server for a
// bounded time and number of requests, then it prints latency percentiles
// and errors. It refuses any host but the loopback.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
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

// Result is what one load run measured.
type Result struct {
	Requests, Errors int
	P50, P90, P99    time.Duration
	Max              time.Duration
	Elapsed          time.Duration
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	base := fs.String("base", "http://127.0.0.1:8080", "server `URL` (loopback only)")
	clients := fs.Int("c", 50, "concurrent `clients`")
	dur := fs.Duration("d", 30*time.Second, "run `duration`")
	maxReq := fs.Int("n", 200000, "stop after this many `requests` in all")
	paths := fs.String("paths", "/experiments/demo,/audits?exp=demo&eval=production&sort=turns&dir=desc,/audits/demo:a-000001", "comma-separated `paths` requested in turn")
	if err := fs.Parse(args); err != nil {
		return err
	}
	res, err := Load(ctx, *base, strings.Split(*paths, ","), *clients, *dur, *maxReq)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "requests %d errors %d in %s (%.0f req/s): p50 %s p90 %s p99 %s max %s\n",
		res.Requests, res.Errors, res.Elapsed.Round(time.Millisecond), float64(res.Requests)/res.Elapsed.Seconds(),
		res.P50.Round(time.Microsecond), res.P90.Round(time.Microsecond), res.P99.Round(time.Microsecond), res.Max.Round(time.Microsecond))
	return nil
}

// Load runs the clients and returns the latency distribution. Non-2xx
// responses and transport errors count as errors.
func Load(ctx context.Context, base string, paths []string, clients int, dur time.Duration, maxReq int) (Result, error) {
	u, err := url.Parse(base)
	if err != nil {
		return Result{}, err
	}
	if err := checkLoopback(u.Hostname()); err != nil {
		return Result{}, err
	}
	if clients < 1 || clients > 1000 || dur <= 0 || dur > 10*time.Minute || maxReq < 1 {
		return Result{}, errors.New("want 1–1000 clients, a duration up to 10 minutes and at least one request")
	}
	ctx, cancel := context.WithTimeout(ctx, dur)
	defer cancel()
	tr := &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	defer tr.CloseIdleConnections()
	var mu sync.Mutex
	var lat []time.Duration
	errs := 0
	var sent int64
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < clients; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				mu.Lock()
				if sent >= int64(maxReq) {
					mu.Unlock()
					return
				}
				// Paths are taken in turn across all clients, so each gets
				// its share whatever its latency.
				p := paths[sent%int64(len(paths))]
				sent++
				mu.Unlock()
				t0 := time.Now()
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+p, nil)
				resp, err := client.Do(req)
				ok := err == nil && resp.StatusCode/100 == 2
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				d := time.Since(t0)
				if ctx.Err() != nil && err != nil {
					return // the run ended mid-request; not an error of the server
				}
				mu.Lock()
				lat = append(lat, d)
				if !ok {
					errs++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	res := Result{Requests: len(lat), Errors: errs, Elapsed: time.Since(start)}
	if len(lat) == 0 {
		return res, errors.New("no request completed")
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	q := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	res.P50, res.P90, res.P99, res.Max = q(0.50), q(0.90), q(0.99), lat[len(lat)-1]
	return res, nil
}

// checkLoopback refuses every host that is not on this machine's loopback.
func checkLoopback(host string) error {
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("refusing %q: loadgen only sends traffic to the loopback (127.0.0.0/8, ::1, localhost)", host)
	}
	return nil
}
