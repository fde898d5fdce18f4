package links

import (
	"net/url"
	"testing"
)

// TestEscaped: an id is one path segment whatever it holds (a slash, a
// space, a question mark, a hash), a page of two segments is two, and the
// query is encoded. (Every builder against the routes: web's
// TestLinksMatchRoutes.)
func TestEscaped(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{string(Audit("small:run1/a 1", nil)), "/audits/small:run1%2Fa%201"},
		{string(Experiment("a?b#c", Units, url.Values{"a": {"x y"}, "b": {"1&2"}})), "/experiments/a%3Fb%23c/compare/units?a=x+y&b=1%262"},
		{string(Experiment("e", Overview, url.Values{})), "/experiments/e"},
		{string(Run("e:r/1", MetricsCSV, nil)), "/runs/e:r%2F1/metrics.csv"},
		{string(PairsComparison("d", "c/1", nil)), "/pairs/d/comparisons/c%2F1"},
		{string(ExperimentFigure("e", "scores.svg", url.Values{"kind": {"baseline"}})), "/experiments/e/figures/scores.svg?kind=baseline"},
		{string(AuditTranscript("e:a")), "/audits/e:a/transcript.json"},
		{string(Audits(nil)), "/audits"},
	} {
		if c.got != c.want {
			t.Errorf("%s, want %s", c.got, c.want)
		}
	}
}
