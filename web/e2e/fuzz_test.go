package e2e

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/demo"
	"github.com/auditscope/auditscope/data/demodb"
	"github.com/auditscope/auditscope/web"
)

// FuzzFigureQueries sends arbitrary query strings to every figure route of
// the demo: none may answer with a server error.
func FuzzFigureQueries(f *testing.F) {
	for _, seed := range []string{
		"", "dim=composite", "reward=binary_pointwise&cal=0.5", "run=nope&dim=realism", "kind=crux&max=3",
		"kind=intragroup&max=99", "ref=a81a4d29&split=topic&ci=1", "ref=model:nope", "dim=%00", "sort=;drop&dir=up",
	} {
		f.Add(seed)
	}
	s := fuzzDemo(f)
	routes := []string{
		"/experiments/demo/figures/scores.svg", "/experiments/demo/figures/crux-composite.svg",
		"/experiments/demo/figures/rwr.svg", "/experiments/demo/figures/transfer.svg",
		"/experiments/demo/figures/cycles.svg", "/experiments/demo/figures/dose.svg",
		"/experiments/demo/figures/refresh.svg", "/runs/demo:ref-pairwise-cal50/figures/curves.svg",
		"/runs/demo:ref-pairwise-cal50/figures/metric-reward.svg",
		"/pairs/synthetic-personality-demo/figures/strength.svg", "/pairs/synthetic-personality-demo/figures/heatmap.svg",
		"/pairs/synthetic-personality-demo/figures/length.svg", "/pairs/synthetic-personality-demo/figures/models.svg",
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if len(raw) > 512 {
			return
		}
		// What a browser sends: the values, whatever they hold, escaped.
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		for _, r := range routes {
			u := r + "?" + q.Encode()
			if res := get(t, s, u); res.Code >= 500 {
				t.Errorf("GET %s: %d", u, res.Code)
			}
		}
	})
}

// routeSamples are a valid value for each route parameter, so that a fuzzed
// query reaches the handler's own parsing rather than a 404.
var routeSamples = map[string]string{
	"exp": "demo", "dataset": "synthetic-personality-demo", "id": "small:a1", "run": "demo:ref-pairwise-cal50",
	"file": "scores.svg", "*": "style.css",
}

// hangUpRecorder is a client that hangs up after the first 64 KiB of a
// body: the status is what FuzzRoutes checks, and a whole export (the
// demo's audits.csv is 33 MB, 5 s) would take an input past the fuzzing
// engine's patience, which then kills the worker as hung.
type hangUpRecorder struct {
	*httptest.ResponseRecorder
	hangUp func()
}

func (r *hangUpRecorder) Write(p []byte) (int, error) {
	if r.Body.Len() >= 64<<10 {
		r.hangUp()
		return 0, errors.New("client hung up")
	}
	return r.ResponseRecorder.Write(p)
}

// FuzzRoutes sends arbitrary path segments and query strings to the
// server's routes: none may answer with a server error. The input picks a
// route (every route is a seed); it is tried with the fuzzed text as each
// of its path parameters, and with valid parameters and the fuzzed query
// string (as raw bytes, the way a client may send them: %ff included). One
// route an input keeps each run short: the fuzzing engine takes an input
// running over 10 s for a hang.
func FuzzRoutes(f *testing.F) {
	s := fuzzDemo(f)
	routes := s.RoutePaths()
	if len(routes) < 40 {
		f.Fatalf("found %d routes", len(routes))
	}
	seeds := [][2]string{
		{"%ff", "eval=%ff"}, {"demo", "exp=%ff&auditor=%ff&sort=%ff"}, {"x%00y", "with=%ff&q=%ff"},
		{"%c3%28", "page=2&dir=%fe"}, {"..%2f..%2fetc", "ref=%ff&split=%80"}, {"%e2%82", "a=%ff%ff=%ff"},
	}
	for i := range routes {
		f.Add(uint16(i), seeds[i%len(seeds)][0], seeds[i%len(seeds)][1])
	}
	f.Fuzz(func(t *testing.T, pick uint16, seg, rawQuery string) {
		// The seeds run in every go test (cold pages, one each); under
		// -short (the race detector's run in CI) every eighth is enough.
		if testing.Short() && pick%8 != 0 {
			t.Skip("-short: every eighth route")
		}
		// A segment holds no / ? or # (it would be another path), a query
		// no #; both are sent as they came, escapes and all.
		if len(seg) > 200 || len(rawQuery) > 400 || seg == "" || strings.ContainsAny(seg, "/?#") || strings.Contains(rawQuery, "#") {
			return
		}
		{
			route := routes[int(pick)%len(routes)]
			parts := strings.Split(route, "/")
			params := 0
			for _, p := range parts {
				if strings.HasPrefix(p, ":") || p == "*" {
					params++
				}
			}
			// Each parameter in turn takes the fuzzed segment (sent as it
			// came, escapes and all); then none does, with the query.
			for fuzzed := 0; fuzzed <= params; fuzzed++ {
				var b strings.Builder
				n := 0
				for i, p := range parts {
					if i > 0 {
						b.WriteByte('/')
					}
					switch {
					case strings.HasPrefix(p, ":") || p == "*":
						n++
						if n == fuzzed {
							b.WriteString(seg)
						} else {
							b.WriteString(url.PathEscape(routeSamples[strings.TrimPrefix(p, ":")]))
						}
					default:
						b.WriteString(p)
					}
				}
				target := b.String() + "?" + rawQuery
				parsed, err := url.ParseRequestURI(target)
				if err != nil {
					continue // no client can send it
				}
				ctx, cancel := context.WithCancel(context.Background())
				req := httptest.NewRequestWithContext(ctx, http.MethodGet, "/", nil)
				req.URL, req.RequestURI = parsed, target
				rec := &hangUpRecorder{ResponseRecorder: httptest.NewRecorder(), hangUp: cancel}
				s.Handler().ServeHTTP(rec, req)
				cancel()
				if rec.Code >= 500 {
					t.Errorf("GET %s: %d\n%.300s", req.RequestURI, rec.Code, rec.Body.String())
				}
			}
		}
	})
}

// smallDemo is the demo with its experiment at about 6,000 audits, the
// small bundle and the Petri fixtures, loaded once per process: a fuzzing
// worker is a process of its own, and each loaded the whole demo (ten
// seconds of a two-core machine) before its first input. The routes and
// the names are the whole demo's.
var smallDemo = sync.OnceValues(func() (*data.Store, error) {
	ctx := context.Background()
	store, err := data.Open(ctx, data.Options{})
	if err != nil {
		return nil, err
	}
	if _, err := demodb.LoadSized(ctx, store, demo.Options{Audits: 6000}); err != nil {
		return nil, err
	}
	for name, p := range map[string]string{"": "../../data/testdata/bundle-small", "petri": "../../data/testdata/petri"} {
		if _, err := store.Import(ctx, p, data.ImportOptions{Name: name}); err != nil {
			return nil, err
		}
	}
	return store, nil
})

// fuzzDemo is a server of its own on the small demo.
func fuzzDemo(f *testing.F) *web.Server {
	f.Helper()
	store, err := smallDemo()
	if err != nil {
		f.Fatal(err)
	}
	return web.New(store, slog.New(slog.NewTextHandler(io.Discard, nil)), web.Config{})
}
