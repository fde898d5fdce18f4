// Command crawl walks a running dashboard from its home page and prints one
// line per URL it fetched: status, content type, size and a SHA-256 of the
// body. Two crawls of two builds on the same data, compared with diff, show
// what a change did to every page, CSV and figure; a refactoring that is
// meant to change nothing must give identical lists.
//
//	go run ./cmd/auditscope &
//	go run -C tools ./crawl -n 2500 > before.txt
//	(rebuild, restart)
//	go run -C tools ./crawl -n 2500 > after.txt && diff before.txt after.txt
//
// The walk takes links in the order pages give them, but always from the
// path (URL without its query) fetched least so far, so that 2,000 URLs
// cover every kind of page, CSV and figure rather than one page's filter
// combinations; the same pages give the same walk.
package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"
)

// links finds href and src attributes; the pages are our own templ output,
// whose attributes are always quoted, so a pattern suffices here.
var links = regexp.MustCompile(`(?:href|src)="([^"]*)"`)

func main() {
	base := flag.String("base", "http://localhost:8080", "the dashboard to crawl")
	n := flag.Int("n", 2000, "how many URLs to fetch")
	skip := flag.String("skip", "", "comma-separated path prefixes not to fetch (e.g. slow bulk exports)")
	mask := flag.String("mask", `Data last changed [0-9: -]+UTC|auditscope-demo-[0-9]+`, "a `regexp` whose matches are blanked before hashing: what differs between two starts of one build")
	flag.Parse()
	masked, err := regexp.Compile(*mask)
	if err != nil {
		fmt.Fprintln(os.Stderr, "crawl: -mask:", err)
		os.Exit(2)
	}
	if err := crawl(*base, *n, strings.Split(*skip, ","), masked, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "crawl:", err)
		os.Exit(1)
	}
}

func crawl(base string, n int, skip []string, mask *regexp.Regexp, out io.Writer) error {
	root, err := url.Parse(base)
	if err != nil {
		return err
	}
	client := &http.Client{
		Timeout: 2 * time.Minute,
		// A redirect is a response like any other: it is recorded, and
		// its target is queued as a link.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	seen := map[string]bool{"/": true}
	queue := &walk{byPath: map[string][]string{}, fetched: map[string]int{}}
	queue.add("/")
	for fetched := 0; fetched < n; fetched++ {
		path, ok := queue.next()
		if !ok {
			break
		}
		res, err := client.Get(root.String() + path)
		if err != nil {
			return err
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		same := mask.ReplaceAll(body, nil)
		fmt.Fprintf(out, "%d %s %d %x %s\n", res.StatusCode, res.Header.Get("Content-Type"), len(same), sha256.Sum256(same), path)
		found := []string{}
		if loc := res.Header.Get("Location"); loc != "" {
			found = append(found, loc)
		}
		if strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
			for _, m := range links.FindAllSubmatch(body, -1) {
				found = append(found, html.UnescapeString(string(m[1])))
			}
		}
		for _, l := range found {
			u, err := url.Parse(l)
			if err != nil {
				continue
			}
			cur, _ := url.Parse(path) // it was built from a parsed URL
			u = root.ResolveReference(cur).ResolveReference(u)
			if u.Host != root.Host || u.Scheme != root.Scheme {
				continue
			}
			p := u.EscapedPath()
			if u.RawQuery != "" {
				p += "?" + u.RawQuery
			}
			if seen[p] || slices.ContainsFunc(skip, func(s string) bool { return s != "" && strings.HasPrefix(p, s) }) {
				continue
			}
			seen[p] = true
			queue.add(p)
		}
	}
	return nil
}

// walk is the crawl's frontier: URLs grouped by path, each group in the
// order its URLs were found.
type walk struct {
	paths   []string // in the order first seen
	byPath  map[string][]string
	fetched map[string]int
}

func (w *walk) add(u string) {
	p, _, _ := strings.Cut(u, "?")
	if _, ok := w.byPath[p]; !ok {
		w.paths = append(w.paths, p)
	}
	w.byPath[p] = append(w.byPath[p], u)
}

// next takes the first waiting URL of the path fetched least so far.
func (w *walk) next() (string, bool) {
	best := ""
	for _, p := range w.paths {
		if len(w.byPath[p]) > 0 && (best == "" || w.fetched[p] < w.fetched[best]) {
			best = p
		}
	}
	if best == "" {
		return "", false
	}
	u := w.byPath[best][0]
	w.byPath[best] = w.byPath[best][1:]
	w.fetched[best]++
	return u, true
}
