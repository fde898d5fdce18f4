package web

import (
	"bytes"
	"net/http"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/labstack/echo/v4"
)

// responseCache keeps recent successful GET responses by URL. The store
// never changes under a running server (imports happen before serving, and
// DuckDB's file lock keeps other writers out), so a response stays right for
// the life of the process; the cache only saves the work of recomputing it.
// It is bounded in entries and in bytes per entry.
type responseCache struct {
	lru *lru.Cache[string, *cachedResponse]
}

type cachedResponse struct {
	status int
	header http.Header
	body   []byte
}

const (
	cacheEntries  = 512
	cacheMaxEntry = 4 << 20 // larger responses (big CSVs) are not kept
)

func newResponseCache() *responseCache {
	c, err := lru.New[string, *cachedResponse](cacheEntries)
	if err != nil {
		panic(err) // only for a non-positive size
	}
	return &responseCache{lru: c}
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

// middleware serves repeated GETs from the cache and records fresh 200s.
func (rc *responseCache) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.Method != http.MethodGet {
			return next(c)
		}
		key := req.URL.RequestURI()
		if hit, ok := rc.lru.Get(key); ok {
			h := c.Response().Header()
			for k, v := range hit.header {
				h[k] = v
			}
			c.Response().WriteHeader(hit.status)
			_, err := c.Response().Write(hit.body)
			return err
		}
		rec := &recorder{ResponseWriter: c.Response().Writer, status: http.StatusOK}
		c.Response().Writer = rec
		err := next(c)
		c.Response().Writer = rec.ResponseWriter
		if err == nil && rec.status == http.StatusOK && !rec.over {
			rc.lru.Add(key, &cachedResponse{status: rec.status, header: c.Response().Header().Clone(), body: rec.buf.Bytes()})
		}
		return err
	}
}
