package views

import (
	"context"
	"strconv"
	"time"
)

// Freshness is how new the data a page shows is: the store's version when
// the page was made and when the data last changed. The web layer puts it
// in the request's context; the layout shows it, and live pages poll
// /api/generation for a newer version.
type Freshness struct {
	Version int64
	Changed time.Time
}

type freshnessKey struct{}

// WithFreshness returns ctx carrying f.
func WithFreshness(ctx context.Context, f Freshness) context.Context {
	return context.WithValue(ctx, freshnessKey{}, f)
}

// freshness is the page's, if the request carries one.
func freshness(ctx context.Context) (Freshness, bool) {
	f, ok := ctx.Value(freshnessKey{}).(Freshness)
	return f, ok
}

// ChangedText says when the data last changed, in UTC.
func (f Freshness) ChangedText() string {
	return f.Changed.UTC().Format("2006-01-02 15:04:05") + " UTC"
}

// VersionText is the version as an attribute value.
func (f Freshness) VersionText() string { return strconv.FormatInt(f.Version, 10) }
