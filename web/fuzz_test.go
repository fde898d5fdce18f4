package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

// FuzzQueryParsers feeds arbitrary query strings to the URL parsers: they
// must never panic, and what they accept must turn into valid SQL clauses.
func FuzzQueryParsers(f *testing.F) {
	for _, seed := range []string{
		"exp=demo&eval=production&sort=turns&dir=desc&page=2&per=10",
		"score=concerning%3E%3D7&score=needs_attention%3C3&q=moscow",
		"split=heldout&outcome=false_positive&epoch=3&run=ref",
		"sort=score:concerning&dir=asc",
		"kind=baseline&cal=0.5&epoch=2&sort=composite&dim=realism",
		"page=999999999999&per=-1", "q=%00%ff%fe", "score=%3E%3D", "sort=';DROP TABLE audits;--",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		if f, err := parseAuditFilter(q); err == nil {
			if err := f.Validate(); err != nil {
				t.Errorf("accepted filter %q builds no SQL: %v", raw, err)
			}
		}
		if page, per, err := parsePage(q); err == nil && (page < 1 || page > maxPage || per < 1 || per > maxPerPage) {
			t.Errorf("parsePage(%q) accepted page %d per %d", raw, page, per)
		}
		if o, err := parseOverviewQuery(q); err == nil {
			_ = o.values()
		}
		// The cycle bound goes through an echo context.
		e := mustEcho()
		req := httptest.NewRequest(http.MethodGet, "/x?"+url.Values(q).Encode(), nil)
		c := e.NewContext(req, httptest.NewRecorder())
		if _, n, err := parseCycleQuery(c); err == nil && (n < 3 || n > maxCycleLen) {
			t.Errorf("cycle bound %d accepted", n)
		}
	})
}
