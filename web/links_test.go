package web

import (
	"net/url"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/views/links"
)

// TestLinksMatchRoutes: every link package links builds (each page and
// file of an experiment, a pairs dataset and a run, the figures, the
// audits, a judgment) is a GET route of the server, with ids that hold a
// slash; and every route but the static files and the generation poll has
// a builder (so a new route gets one).
func TestLinksMatchRoutes(t *testing.T) {
	s := fakeServer(t, handMade(), Config{})
	routes := s.RoutePaths()
	id := "x:a/b"
	var built []string
	for _, p := range links.ExpPages {
		built = append(built, string(links.Experiment(id, p, nil)))
	}
	for _, p := range links.PairsPages {
		built = append(built, string(links.Pairs(id, p, nil)))
	}
	for _, p := range links.RunPages {
		built = append(built, string(links.Run(id, p, nil)))
	}
	built = append(built, string(links.ExperimentFigure(id, "scores.svg", nil)), string(links.PairsFigure(id, "strength.svg", nil)),
		string(links.RunFigure(id, "curves.svg", nil)), string(links.PairsComparison(id, id, nil)), string(links.Audits(nil)),
		string(links.AuditsCSV(url.Values{"exp": {"x"}})), string(links.SideBySide(nil)), string(links.Audit(id, nil)),
		string(links.AuditTranscript(id)), string(links.Judgment(id)), string(links.Home()))
	matched := map[string]bool{}
	for _, b := range built {
		path, _, _ := strings.Cut(b, "?")
		r := matchRoute(routes, path)
		if r == "" {
			t.Errorf("%s is no route of the server", b)
		}
		matched[r] = true
	}
	for _, r := range routes {
		if !matched[r] && r != "/static/*" && r != "/api/generation" {
			t.Errorf("the route %s has no builder in package links", r)
		}
	}
}

// matchRoute is the route of routes (echo's patterns: ":name" one
// segment, "*" the rest) that path matches, "" none; a route of fixed
// segments wins over one with a parameter there, as echo's router has it.
func matchRoute(routes []string, path string) string {
	best, bestScore := "", -1
	segs := strings.Split(path, "/")
	for _, r := range routes {
		rs := strings.Split(r, "/")
		score, ok := 0, true
		for i, p := range rs {
			if p == "*" {
				break
			}
			if i >= len(segs) || (!strings.HasPrefix(p, ":") && p != segs[i]) {
				ok = false
				break
			}
			if !strings.HasPrefix(p, ":") {
				score++
			}
		}
		if ok && (len(rs) == len(segs) || rs[len(rs)-1] == "*") && score > bestScore {
			best, bestScore = r, score
		}
	}
	return best
}
