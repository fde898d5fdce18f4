package web

import (
	"bytes"
	"net/http"
	"strconv"
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/labstack/echo/v4"
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
// Identical requests that miss at the same time are computed once: the
// first (the leader) runs the handler, the others wait for it and are sent
// its recorded response. A burst of clients opening the same new page thus
// costs one computation, not one per client.
type responseCache struct {
	lru *lru.Cache[string, *cachedResponse]

	mu       sync.Mutex // guards inflight, bytes and every change to lru; never held while a handler runs
	inflight map[string]*flight
	bytes    int // of the bodies in lru
	maxBytes int // cacheMaxBytes, lowered in tests

	// waiting, when set (by tests), is called as a request starts waiting
	// for the leader of its URL.
	waiting func(key string)
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

// flight is one leader's computation of a URL; done is closed once resp is
// set, and resp stays nil when the response could not be cached.
type flight struct {
	done chan struct{}
	resp *cachedResponse
}

const (
	cacheEntries  = 512
	cacheMaxEntry = 4 << 20  // larger responses (big CSVs) are not kept
	cacheMaxBytes = 64 << 20 // bodies in all; the least recently used go first
)

func newResponseCache() *responseCache {
	rc := &responseCache{inflight: map[string]*flight{}, maxBytes: cacheMaxBytes}
	// Called for every entry that leaves lru, inside add (under mu).
	evicted := func(_ string, r *cachedResponse) { rc.bytes -= len(r.body) }
	c, err := lru.NewWithEvict[string, *cachedResponse](cacheEntries, evicted)
	if err != nil {
		panic(err) // only for a non-positive size
	}
	rc.lru = c
	return rc
}

// add keeps r under key, then evicts the least recently used entries until
// the bodies fit in maxBytes. The caller holds mu.
func (rc *responseCache) add(key string, r *cachedResponse) {
	if old, ok := rc.lru.Peek(key); ok { // replaced without an eviction
		rc.bytes -= len(old.body)
	}
	rc.lru.Add(key, r)
	rc.bytes += len(r.body)
	for rc.bytes > rc.maxBytes {
		rc.lru.RemoveOldest()
	}
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
		rc.mu.Lock()
		if hit, ok := rc.lru.Get(key); ok {
			rc.mu.Unlock()
			return serveCached(c, hit)
		}
		if f, ok := rc.inflight[key]; ok {
			rc.mu.Unlock()
			if rc.waiting != nil {
				rc.waiting(key)
			}
			select {
			case <-f.done:
			case <-req.Context().Done():
				return req.Context().Err()
			}
			if f.resp != nil {
				return serveCached(c, f.resp)
			}
			// The leader's response was an error, too big, or refused for
			// load: compute this one separately (and keep it if it can be).
			resp, err := record(c, next)
			if resp != nil {
				rc.mu.Lock()
				rc.add(key, resp)
				rc.mu.Unlock()
			}
			return err
		}
		f := &flight{done: make(chan struct{})}
		rc.inflight[key] = f
		rc.mu.Unlock()
		// Deferred so that followers are released even if the handler
		// panics; the response is in the cache before the flight ends, so a
		// later request finds one or the other.
		defer func() {
			rc.mu.Lock()
			if f.resp != nil {
				rc.add(key, f.resp)
			}
			delete(rc.inflight, key)
			rc.mu.Unlock()
			close(f.done)
		}()
		var err error
		f.resp, err = record(c, next)
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
