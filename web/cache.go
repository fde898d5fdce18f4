package web

import (
	"bytes"
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

// recorder captures a response while it is written. A leader's recorder
// holds the response back from its client until the waiters have it: the
// waiters are handed the response when the handler ends, or told to
// compute their own (handed nil) once it is too big to keep or the handler
// flushes (a streamed export); only then are the held bytes sent and the
// rest passed through. So no waiter waits on the leader's client reading
// (a reader at 4 KB/s held another client of the same URL for a minute).
type recorder struct {
	http.ResponseWriter
	status int
	buf    bytes.Buffer
	over   bool
	// hand, when set, passes the recorded response (nil: none) to the
	// requests waiting for it; it is cleared once called. While it is set,
	// nothing has been sent to the client.
	hand        func(*cachedResponse)
	wroteHeader bool
}

func (r *recorder) WriteHeader(code int) {
	r.status = code
	r.wroteHeader = true
	if r.hand == nil {
		r.ResponseWriter.WriteHeader(code)
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	if !r.over && r.buf.Len()+len(b) > cacheMaxEntry {
		r.over = true
		if r.hand != nil {
			if err := r.release(nil); err != nil {
				return 0, err
			}
		}
		r.buf = bytes.Buffer{}
	}
	if !r.over {
		r.buf.Write(b)
	}
	if r.hand != nil {
		return len(b), nil
	}
	return r.ResponseWriter.Write(b)
}

// release hands resp to the waiters, then sends the client what was held.
func (r *recorder) release(resp *cachedResponse) error {
	hand := r.hand
	r.hand = nil
	hand(resp)
	if r.wroteHeader {
		r.ResponseWriter.WriteHeader(r.status)
	}
	if r.buf.Len() == 0 {
		return nil
	}
	_, err := r.ResponseWriter.Write(r.buf.Bytes())
	return err
}

// Flush ends the holding (a flushed response streams: its waiters compute
// their own) and flushes the connection.
func (r *recorder) Flush() {
	if r.hand != nil {
		if err := r.release(nil); err != nil {
			return
		}
	}
	http.NewResponseController(r.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection (its write
// deadlines).
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
		// The first request of a URL (the leader) runs the handler; the
		// memo holds the others until the leader hands them its response
		// (see recorder).
		resp, hand, err := rc.m.Begin(req.Context(), key)
		switch {
		case hand != nil:
			return lead(c, next, hand)
		case err != nil: // this request ended while it waited
			return err
		case resp != nil:
			return serveCached(c, resp)
		}
		// The leader's response was an error, too big, streamed, or
		// refused for load: compute this one separately (and keep it if
		// it can be).
		resp, err = record(c, next, nil)
		rc.m.Put(key, resp)
		return err
	}
}

// lead runs next as the leader of its URL: hand gets the response, or nil
// when it cannot be kept, before the client is sent anything but what a
// stream flushed. The handler's error and panic are the leader's alone:
// the requests that waited run the handler themselves.
func lead(c echo.Context, next echo.HandlerFunc, hand func(*cachedResponse, error)) error {
	handed := func(r *cachedResponse) { hand(r, nil) }
	defer handed(nil) // after a panic; a second call does nothing
	_, err := record(c, next, handed)
	return err
}

// record runs next with the response recorded, and returns the response
// when it can be cached: a 200 without error no larger than cacheMaxEntry.
// With hand, the response is held back from the client until hand has it
// (see recorder).
func record(c echo.Context, next echo.HandlerFunc, hand func(*cachedResponse)) (resp *cachedResponse, err error) {
	rec := &recorder{ResponseWriter: c.Response().Writer, status: http.StatusOK, hand: hand}
	c.Response().Writer = rec
	defer func() {
		// Whatever ends the handler (an error page, a panic), the waiters
		// are let go and the client gets what was written.
		if rec.hand != nil {
			if rerr := rec.release(resp); err == nil {
				err = rerr
			}
		}
		c.Response().Writer = rec.ResponseWriter
	}()
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
