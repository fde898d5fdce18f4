// Package web serves the dashboard: routes, handlers and the one error
// handler. Handlers are methods on Server and return errors.
package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/web/app"
)

// Store is what the server serves from: everything the application layer
// reads (app.Reader), and the store's life between requests, which the
// middleware manages: a lake's refresh, the view lock that lets imports
// land only between requests, and the versions pages are cached by. The
// data package's Store is one.
type Store interface {
	app.Reader
	Refresh(ctx context.Context) (bool, error)
	View() (release func())
	ChangedAt() time.Time
	Version() int64
	IsLake() bool
	LakeProblemVersion() int64
}

// Config holds the server's settings.
type Config struct {
	// NoResponseCache turns off the cache of whole responses, so that
	// benchmarks measure the work behind a page rather than a cache hit.
	NoResponseCache bool
	// Problems, when set (serve --watch), lists the files of the watched
	// folders that could not be imported, for the home page.
	Problems func() []model.Problem
	// ProblemsVersion counts the changes to Problems: cached pages are
	// kept per data version and per this.
	ProblemsVersion func() int64
	// The heavy work's limits (see limit.go; 0 is the default): how many
	// pieces run at once, how long a request may wait for a slot, how many
	// requests one client may have waiting, and how many may wait in all.
	Slots       int
	Wait        time.Duration
	ClientQueue int
	Queue       int
	// WriteIdle is how long a response may make no progress on its
	// connection before it is dropped (0: writeIdle).
	WriteIdle time.Duration
	// TrustedProxies are the peers whose X-Forwarded-For names the
	// client (serve --trusted-proxies): behind a reverse proxy every
	// person arrives from the proxy's address, and the heavy work's
	// fairness per client made them one client. Empty: the peer is the
	// client, whatever a header says.
	TrustedProxies []*net.IPNet
}

// Server holds the dependencies of every handler.
type Server struct {
	store Store
	log   *slog.Logger
	cfg   Config
	echo  *echo.Echo
	// The application layer (statistics and what is computed from them),
	// under the name of what each group of pages reads of it (services.go).
	services
	cache *responseCache // whole responses by URL, see cache.go
	sched *scheduler     // shares the heavy work among clients, see limit.go

	refreshMu  sync.Mutex // the last lake error logged
	refreshErr string
}

// New builds the server and its routes.
func New(store Store, logger *slog.Logger, cfg Config) *Server {
	s := &Server{store: store, log: logger, cfg: cfg, services: servicesOf(app.New(store)), sched: newScheduler(cfg)}
	if !cfg.NoResponseCache {
		s.cache = newResponseCache()
		s.cache.version = s.Version
	}
	e := echo.New()
	e.IPExtractor = clientIP(cfg.TrustedProxies)
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = s.handleError
	s.echo = e
	s.routes(e)
	return s
}

// Store is what the server serves from.
func (s *Server) Store() Store { return s.store }

// RoutePaths are the paths of the server's GET routes, each once, sorted:
// the map a crawler or a fuzzer starts from.
func (s *Server) RoutePaths() []string {
	var paths []string
	for _, r := range s.echo.Routes() {
		if r.Method == http.MethodGet && !slices.Contains(paths, r.Path) {
			paths = append(paths, r.Path)
		}
	}
	slices.Sort(paths)
	return paths
}

// Version is what the pages show changes by: the data's version, and with
// --watch or --lake the changes to the watched folders' problems or to why
// the lake's newest manifest is not served (the home page shows both).
func (s *Server) Version() int64 {
	v := s.store.Version()
	if s.cfg.ProblemsVersion == nil && !s.store.IsLake() {
		return v
	}
	v = v<<20 + s.store.LakeProblemVersion()
	if s.cfg.ProblemsVersion != nil {
		v += s.cfg.ProblemsVersion()
	}
	return v
}

// Handler returns the HTTP handler.
func (s *Server) Handler() http.Handler { return s.echo }

// Serve serves h on ln until ctx is cancelled, then shuts down gracefully:
// in-flight requests get up to ten seconds to finish.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, logger *slog.Logger) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second,
		// No WriteTimeout: it bounds a whole response, and cut slow
		// clients' exports mid-row. Each response has an idle write
		// deadline instead (idleWrites).
		IdleTimeout:    120 * time.Second,
		MaxHeaderBytes: 64 << 10,
		ErrorLog:       slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		// A slow reader's blocked write wakes within seconds, not when
		// megabytes of send buffer have half drained (lowat_linux.go).
		ConnState: func(c net.Conn, st http.ConnState) {
			if st == http.StateNew {
				limitUnsent(c)
			}
		},
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Get runs one GET request against h in memory (for auditscope export)
// and returns the body, the status and the content type. It takes no HTML
// for an error, so an error's body is its message on one line.
func Get(h http.Handler, path string) (body []byte, status int, contentType string, err error) {
	req, err := http.NewRequest(http.MethodGet, path, nil)
	if err != nil {
		return nil, 0, "", fmt.Errorf("bad URL path %q: %w", path, err)
	}
	req.Header.Set("Accept", "text/csv, image/*, application/pdf, text/plain")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Body.Bytes(), rec.Code, rec.Header().Get("Content-Type"), nil
}
