package web

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views"
)

func (s *Server) showHome(c echo.Context) error {
	sum, lake, err := s.home.Home(c.Request().Context())
	if err != nil {
		return err
	}
	var problems []model.Problem
	if s.cfg.Problems != nil {
		problems = s.cfg.Problems()
	}
	return render(c, http.StatusOK, views.Home(sum, problems, lake))
}

// generation answers the live pages' poll: the data's version and when it
// last changed. It reads two numbers and takes no lock (a lake reads its
// small manifest), so polling costs next to nothing while the data stands
// still.
func (s *Server) generation(c echo.Context) error {
	c.Response().Header().Set("Cache-Control", "no-store")
	// A lake's open pages learn of a new manifest through their poll.
	s.refresh(c.Request().Context())
	return c.JSON(http.StatusOK, map[string]any{"version": s.Version(), "changed": s.store.ChangedAt().Format(time.RFC3339)})
}

// consistent makes a request read one state of the data: it holds the
// store's View (imports land only between requests) and carries the data's
// version for the page footer and the live pages' poll. Static files and
// the poll itself need neither.
//
// The response is held in memory until the handler is done and the View
// released, and only then sent: a slow client must not keep an import
// waiting, nor, through the lock's writer preference, every request after
// it. The full audit export streams chunk by chunk (it can be far larger
// than memory should hold) and holds no View across its chunks: each chunk
// is read under the View (chunkInSlot) and reads one state, and an import
// that lands during a long export may show in its later chunks
// (docs/WATCH.md).
func (s *Server) consistent(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		p := c.Request().URL.Path
		if p == "/api/generation" || p == "/audits.csv" || strings.HasPrefix(p, "/static/") {
			return next(c)
		}
		// A lake (serve --lake) follows its manifest on the next request;
		// one it cannot read leaves the last good state serving.
		s.refresh(c.Request().Context())
		release := s.store.View()
		req := c.Request()
		c.SetRequest(req.WithContext(views.WithFreshness(req.Context(), views.Freshness{Version: s.Version(), Changed: s.store.ChangedAt()})))
		resp := c.Response()
		held := &heldResponse{ResponseWriter: resp.Writer}
		resp.Writer = held
		err := func() error {
			// Released and restored even if the handler panics (the
			// recovery middleware is outside).
			defer func() { resp.Writer = held.ResponseWriter; release() }()
			return next(c)
		}()
		if ferr := held.send(); err == nil {
			err = ferr
		}
		return err
	}
}

// heldResponse keeps a response's status and body until send; headers go
// straight to the real writer's map, which is not sent before its status.
type heldResponse struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (h *heldResponse) WriteHeader(code int) {
	if h.status == 0 {
		h.status = code
	}
}

func (h *heldResponse) Write(b []byte) (int, error) {
	if h.status == 0 {
		h.status = http.StatusOK
	}
	return h.body.Write(b)
}

// send writes the held status and body, if the handler wrote any.
func (h *heldResponse) send() error {
	if h.status == 0 {
		return nil
	}
	h.ResponseWriter.WriteHeader(h.status)
	_, err := h.ResponseWriter.Write(h.body.Bytes())
	return err
}

// logRefresh logs a lake that cannot be read, once per distinct error.
// refresh has a lake follow its manifest and logs why what it serves is
// not the newest: a manifest it cannot read, or a data file it refused
// (whose dataset or experiment serves its last good state).
func (s *Server) refresh(ctx context.Context) {
	_, err := s.store.Refresh(ctx)
	if err == nil {
		if p := s.store.LakeProblem(); p != nil {
			err = p
		}
	}
	if err != nil {
		s.logRefresh(err)
	}
}

func (s *Server) logRefresh(err error) {
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	if msg := err.Error(); msg != s.refreshErr {
		s.refreshErr = msg
		s.log.Error("lake: serving the last good generation", "err", msg)
	}
}
