package web

import (
	"bytes"
	"context"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/web/app"
)

// responseCache keeps recent successful GET responses by URL and data
// version: an import that lands while the server runs (serve --watch) moves
// the version, so no response of the old data is served after it; DuckDB's
// file lock keeps writers outside the process away. The cache only saves
// the work of recomputing a response.
// It is bounded in entries, in bytes per entry and in bytes in all: under
// load, every distinct URL of a figure or CSV would otherwise be kept, up to
// cacheEntries × cacheMaxEntry (2 GiB).
//
// Identical requests that miss at the same time are computed once (the
// memo's single flight): the first (the leader) runs the handler, the others
// wait for it and are sent its recorded response. A burst of clients opening
// the same new page thus costs one computation, not one per client.
type responseCache struct {
	// m keeps the responses; a value is nil when the leader's response could
	// not be kept, and is then not remembered.
	m *app.Memo[string, *cachedResponse]
	// version is the data's version: responses are kept per version, so
	// after an import lands no page of the old data is served. Requests
	// read it inside the store's View (see Server.consistent).
	version func() int64
}

type cachedResponse struct {
	status int
	header http.Header
	body   []byte
}

const (
	cacheEntries  = 512
	cacheMaxEntry = 4 << 20  // larger responses (big CSVs) are not kept
	cacheMaxBytes = 64 << 20 // bodies in all; the least recently used go first
)

func newResponseCache() *responseCache {
	m := app.NewMemo[string, *cachedResponse](cacheEntries)
	m.Keep = func(r *cachedResponse) bool { return r != nil }
	m.Cost = func(r *cachedResponse) int { return len(r.body) }
	m.MaxCost = cacheMaxBytes
	return &responseCache{m: m}
}

// recorder captures a response while it is written.
type recorder struct {
	http.ResponseWriter
	status int
	buf    bytes.Buffer
	over   bool
}

func (r *recorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if !r.over {
		if r.buf.Len()+len(b) > cacheMaxEntry {
			r.over = true
			r.buf = bytes.Buffer{}
		} else {
			r.buf.Write(b)
		}
	}
	return r.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController (echo's Flush) reach the connection,
// so a streamed response is flushed through the recorder.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// key is the cache key of a URL: the URL with the data's version.
func (rc *responseCache) key(uri string) string {
	if rc.version == nil {
		return uri
	}
	return strconv.FormatInt(rc.version(), 10) + " " + uri
}

// middleware serves repeated GETs from the cache, makes concurrent misses of
// one URL share a computation, and records fresh 200s.
func (rc *responseCache) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.Method != http.MethodGet {
			return next(c)
		}
		key := rc.key(req.URL.RequestURI())
		// The first request of a URL (the leader) runs the handler,
		// answering its own client as it goes; the memo holds the others
		// until it is done and hands them the recorded response.
		var led bool
		var leaderErr error
		var leaderPanic any
		resp, err := rc.m.Get(req.Context(), key, func(context.Context) (*cachedResponse, error) {
			led = true
			// The handler's error and panic are the leader's alone: the
			// requests that waited run the handler themselves (below).
			defer func() { leaderPanic = recover() }()
			var r *cachedResponse
			r, leaderErr = record(c, next)
			return r, nil
		})
		switch {
		case leaderPanic != nil:
			panic(leaderPanic)
		case led:
			return leaderErr
		case err != nil: // this request ended while it waited
			return err
		case resp != nil:
			return serveCached(c, resp)
		}
		// The leader's response was an error, too big, or refused for
		// load: compute this one separately (and keep it if it can be).
		resp, err = record(c, next)
		rc.m.Put(key, resp)
		return err
	}
}

// record runs next with the response recorded, and returns the response
// when it can be cached: a 200 without error no larger than cacheMaxEntry.
func record(c echo.Context, next echo.HandlerFunc) (*cachedResponse, error) {
	rec := &recorder{ResponseWriter: c.Response().Writer, status: http.StatusOK}
	c.Response().Writer = rec
	defer func() { c.Response().Writer = rec.ResponseWriter }()
	if err := next(c); err != nil {
		return nil, err
	}
	if rec.status != http.StatusOK || rec.over {
		return nil, nil
	}
	return &cachedResponse{status: rec.status, header: c.Response().Header().Clone(), body: rec.buf.Bytes()}, nil
}

func serveCached(c echo.Context, hit *cachedResponse) error {
	h := c.Response().Header()
	for k, v := range hit.header {
		h[k] = v
	}
	c.Response().WriteHeader(hit.status)
	_, err := c.Response().Write(hit.body)
	return err
}
