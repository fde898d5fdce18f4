package web

import (
	"net/url"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/web/app"
)

// overviewStats are the experiment's statistics under the query's judge=
// when that judge gave outcomes (issue #51), else the evaluation judge's:
// a judge that scored only the judge dimensions is the judged panel's to
// read (and to refuse when unknown), and the page then says that the
// auditor table is the evaluation judge's.
func (s *Server) overviewStats(c echo.Context) (*app.ExperimentStats, error) {
	ctx := c.Request().Context()
	st, err := s.stats.Stats(ctx, c.Param("exp"))
	j := c.QueryParam("judge")
	if err != nil || j == "" || !slices.Contains(st.Judges, j) {
		return st, err
	}
	return s.stats.StatsUnder(ctx, st.Exp.ID, j)
}

// outcomeJudges says whose outcomes st reads, for the page.
func outcomeJudges(c echo.Context, st *app.ExperimentStats) views.OutcomeJudges {
	return views.OutcomeJudges{Judge: st.Judge, Asked: c.QueryParam("judge"), Judges: st.Judges}
}

// keepJudge puts the request's judge= into a page's state, so its links
// keep it.
func keepJudge(c echo.Context, q url.Values) {
	if j := c.QueryParam("judge"); j != "" {
		q.Set("judge", j)
	}
}

// judgedBy is what a figure's title adds under another judge's outcomes
// ("" under the evaluation judge's): a downloaded figure says whose they
// are.
func judgedBy(judge string) string {
	if judge == "" {
		return ""
	}
	return ", judged by " + judge
}
