package e2e

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/demodb"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/data/watch"
	"github.com/auditscope/auditscope/web"
	"github.com/auditscope/auditscope/web/internal/webtest"
)

// The end-to-end tests' servers (issue #52): the built-in demo, the
// Inspect fixtures and a watched folder, each over a real store. They are
// web's unit tests' helpers as they were; those move here as the tests
// that use them do.

// demoStore is the built-in demo, loaded once for the tests of this package
// because loading it takes a moment. It is read-only to them: a test that
// imports makes its own store.
var demoStore = sync.OnceValues(func() (*data.Store, error) {
	ctx := context.Background()
	store, err := data.Open(ctx, data.Options{})
	if err != nil {
		return nil, err
	}
	if _, err := demodb.Load(ctx, store); err != nil {
		return nil, err
	}
	if _, err := store.Import(ctx, "../../data/testdata/bundle-small", data.ImportOptions{}); err != nil {
		return nil, err
	}
	if _, err := store.Import(ctx, "../../data/testdata/petri", data.ImportOptions{Name: "petri"}); err != nil {
		return nil, err
	}
	return store, nil
})

// sharedDemo is the one server of the demo that the tests of what pages
// show share: the demo's statistics are computed once for them all, not
// once a test (they were most of this package's time). Its heavy work
// waits as long as it must (tests run two at a time beside it), so a
// refusal under load is never a test's answer. A test of what a server
// computes fresh, caches or refuses makes its own (web.New on
// mustDemoStore).
var sharedDemo = sync.OnceValues(func() (*web.Server, error) {
	store, err := demoStore()
	if err != nil {
		return nil, err
	}
	return web.New(store, slog.New(slog.NewTextHandler(io.Discard, nil)), web.Config{Wait: time.Hour}), nil
})

// mustDemo is the shared server of the demo (sharedDemo).
func mustDemo(t testing.TB) *web.Server {
	t.Helper()
	s, err := sharedDemo()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// mustStore is an empty in-memory store, closed when the test ends.
func mustStore(t testing.TB) *data.Store {
	t.Helper()
	store, err := data.Open(context.Background(), data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

// inspectFixtures is the folder of real Inspect logs.
func inspectFixtures(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "fixtures", "inspect")
}

// inspectServer imports each Inspect fixture as its own experiment, named
// by model.Slugify of the file name.
func inspectServer(t *testing.T) *web.Server {
	t.Helper()
	ctx := context.Background()
	store, err := data.Open(ctx, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	entries, err := os.ReadDir(inspectFixtures(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") && !strings.HasSuffix(e.Name(), ".eval") {
			continue
		}
		if _, err := store.Import(ctx, filepath.Join(inspectFixtures(t), e.Name()), data.ImportOptions{Name: model.Slugify(e.Name())}); err != nil {
			t.Fatal(err)
		}
	}
	return web.New(store, slog.New(slog.NewTextHandler(io.Discard, nil)), web.Config{})
}

// samplesServer imports a folder of three Inspect logs of one task
// (popularity) on three models, as Inspect writes a log directory: one
// experiment, "pop", whose sides are the models.
func samplesServer(t *testing.T) *web.Server {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "pop")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"popularity.json", "log_read_sample.json", "log_formats.json"} {
		b, err := os.ReadFile(filepath.Join(inspectFixtures(t), f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	store := mustStore(t)
	if _, err := store.Import(context.Background(), dir, data.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	return quietServer(store)
}

// watchServer serves an in-memory store that a watcher keeps in step with
// dir (fsnotify, a short settle time).
func watchServer(t testing.TB, dir string, opts watch.Options) (*web.Server, *watch.Watcher) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	store, err := data.Open(ctx, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if opts.Settle == 0 {
		opts.Settle = 50 * time.Millisecond
	}
	// The watcher's log goes to the test's: a failed import is the first
	// thing to read when a wait times out. (Cleanup waits for the watcher
	// to stop, so it does not log after the test.)
	w, err := watch.New(store, slog.New(slog.NewTextHandler(testLog{t}, nil)), []string{dir}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		<-w.Done()
		store.Close()
	})
	problems := func() []model.Problem {
		var out []model.Problem
		for _, p := range w.Problems() {
			out = append(out, model.Problem{File: p.File, Msg: p.Msg})
		}
		return out
	}
	return web.New(store, slog.New(slog.NewTextHandler(io.Discard, nil)), web.Config{Problems: problems, ProblemsVersion: w.ProblemsVersion}), w
}

// testLog writes log lines to the test's log.
type testLog struct{ t testing.TB }

func (l testLog) Write(b []byte) (int, error) {
	l.t.Log(strings.TrimSuffix(string(b), "\n"))
	return len(b), nil
}

func copyFile(t testing.TB, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	// Written beside and renamed into place, as tools that write logs do,
	// so the watcher never reads half a copy.
	tmp := filepath.Join(filepath.Dir(dst), "."+filepath.Base(dst)+".tmp")
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		t.Fatal(err)
	}
}

// quietServer is a server without the response cache: the benchmarks
// measure the work behind each page, not a cache hit.
func quietServer(store web.Store) *web.Server {
	return web.New(store, slog.New(slog.NewTextHandler(io.Discard, nil)), web.Config{NoResponseCache: true})
}

// mustDemoStore is the shared demo store (read-only to the tests).
func mustDemoStore(t testing.TB) *data.Store {
	t.Helper()
	store, err := demoStore()
	if err != nil {
		t.Fatal(err)
	}
	return store
}

// dataStore is the database behind a test server, for what only the data
// package does (imports, lake writes).
func dataStore(t testing.TB, s *web.Server) *data.Store {
	t.Helper()
	store, ok := s.Store().(*data.Store)
	if !ok {
		t.Fatalf("the server's store is a %T, not a database", s.Store())
	}
	return store
}

// The shared helpers (web/internal/webtest), by the names the tests use.
type response = webtest.Response

var (
	contains = webtest.Contains
	csvRows  = webtest.CSVRows
	csvNum   = webtest.CSVNum
	near     = webtest.Near
)

func get(t testing.TB, s *web.Server, path string) response {
	t.Helper()
	return webtest.Get(t, s.Handler(), path)
}

// mustGet fetches path and checks the status and content type.
func mustGet(t testing.TB, s *web.Server, path string, status int, contentType string) response {
	t.Helper()
	return webtest.MustGet(t, s.Handler(), path, status, contentType)
}

func within[T any](t *testing.T, ch <-chan T, d time.Duration, what string) T {
	t.Helper()
	return webtest.Within(t, ch, d, what)
}

func pollUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	webtest.PollUntil(t, what, cond)
}
