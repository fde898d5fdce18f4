package web

import (
	"net/http"
	"strings"
	"testing"
)

// TestSVGPolicy: an SVG figure may style itself and do nothing else; the
// page and the PNG keep the pages' policy.
func TestSVGPolicy(t *testing.T) {
	s := fakeServer(t, handMade(), Config{})
	for u, want := range map[string]string{
		"/experiments/x/figures/scores.svg": svgPolicy,
		"/experiments/x/figures/scores.png": contentSecurityPolicy,
		"/experiments/x":                    contentSecurityPolicy,
	} {
		if got := mustGet(t, s, u, http.StatusOK, "").Header.Get("Content-Security-Policy"); got != want {
			t.Errorf("%s: Content-Security-Policy %q, want %q", u, got, want)
		}
	}
	// Our pages may embed an SVG (as <object>); no other site may.
	for u, want := range map[string]string{"/experiments/x/figures/scores.svg": "SAMEORIGIN", "/experiments/x": "DENY"} {
		if got := mustGet(t, s, u, http.StatusOK, "").Header.Get("X-Frame-Options"); got != want {
			t.Errorf("%s: X-Frame-Options %q, want %q", u, got, want)
		}
	}
	if !strings.HasSuffix(svgPolicy, "frame-ancestors 'self'") {
		t.Errorf("the SVG policy %q lets other sites frame it", svgPolicy)
	}
	if strings.Contains(svgPolicy, "script") || !strings.HasPrefix(svgPolicy, "default-src 'none'") {
		t.Errorf("the SVG policy %q allows more than styles", svgPolicy)
	}
}
