package web

import (
	"slices"
	"strings"

	"github.com/auditscope/auditscope/web/app"
	"github.com/labstack/echo/v4"
)

// The query parameters each route reads, by page (routes.go gives every
// route its set). A parameter a route does not know is refused (400) with
// the names it knows: a mistyped shared link (?experiment=small for
// ?exp=small) otherwise showed unfiltered numbers as if filtered. A CSV
// twin or figure knows its page's names, since the page's links to it
// carry the page's whole query.
var (
	noParams = params()
	// The AnnotatedPairs explorer (parseExplorerQuery, parseRefQuery).
	explorerParams = params("ci", "dir", "metric", "mode", "ref", "refmodels", "sort", "split", "values", "with")
	refParams      = params("ref", "refmodels")
	modelsParams   = params("max", "ref", "refmodels")
	listParams     = params("ann", "filter", "models", "page", "q", "ref", "refmodels", "split", "value")
	pairsCmpParams = params("a", "b", "ref", "refmodels")
	// An experiment's overview (parseOverviewQuery, parseScorerQuery).
	overviewParams = params(append([]string{"cal", "dim", "dir", "epoch", "kind", "reward", "run", "sdir", "sort", "ssort"}, judgedNames...)...)
	// The judge-scored overview's files and its paired comparison
	// (parseJudgedQuery, parsePairedQuery).
	judgedParams   = params(judgedNames...)
	pairedParams   = params(append([]string{"a", "b", "corr"}, judgedNames...)...)
	scorerParams   = params("sdir", "ssort")
	compareParams  = params("a", "b", "judge")
	unitsParams    = params("a", "b", "dim", "judge", "page", "show", "sort")
	rwrParams      = params("run")
	cyclesParams   = params("kind", "max")
	sweepParams    = params("dim", "epoch", "judge")
	transferParams = params("judge")
	runParams      = params("judge")
	judgmentParams = params("auditor", "behavior", "kind", "page", "per", "split", "vs")
	// The audit list (parseAuditsQuery) and an audit within it.
	// task, log and sample_epoch filter Inspect samples; an audit page's
	// own are its view, branch and part, and the events tab's tab and kind.
	auditListParams = params("auditor", "behavior", "cols", "dir", "epoch", "eval", "exp", "judge", "log", "outcome", "page", "per", "q", "run", "sample_epoch",
		"score", "sort", "split", "target", "task")
	auditParams = params("auditor", "behavior", "branch", "cols", "dir", "epoch", "eval", "exp", "judge", "kind", "log", "outcome", "page", "part", "per", "q", "run",
		"sample_epoch", "score", "sort", "split", "tab", "target", "task", "view")
	sideParams = params("a", "b", "dim")
	// The judges page's figure: which pair of judges (from 1).
	judgesFigParams = params("pair")
)

// multiValued are the parameters a page reads as lists (compare's B
// auditors, the audit list's score filters and columns, the explorer's
// reference annotators, models and values). Any other given twice is
// refused: the page read the first value and never checked the second, so
// /audits.csv?exp=demo&exp=nosuch served the demo's 33 MB.
var multiValued = map[string]bool{"b": true, "cols": true, "models": true, "ref": true, "refmodels": true, "score": true, "values": true, "with": true}

// paramSet is the sorted names of a route's query parameters.
type paramSet []string

func params(names ...string) paramSet {
	s := slices.Clone(names)
	slices.Sort(s)
	return s
}

// check refuses a query with a name not in the set.
func (ps paramSet) check(c echo.Context) error {
	q := c.QueryParams()
	names := make([]string, 0, len(q))
	for name := range q {
		names = append(names, name)
	}
	slices.Sort(names) // the same error for the same URL
	for _, name := range names {
		if _, ok := slices.BinarySearch(ps, name); ok {
			if n := len(q[name]); n > 1 && !multiValued[name] {
				return badRequestf("%s: given %d times; this page takes one value", name, n)
			}
			continue
		}
		if len(ps) == 0 {
			return badRequestf("unknown query parameter %q: this page takes none", name)
		}
		return badRequestf("unknown query parameter %q: this page takes %s", name, strings.Join(ps, ", "))
	}
	return nil
}

// known is route middleware that refuses parameters not in ps.
func known(ps paramSet) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if err := ps.check(c); err != nil {
				return err
			}
			return next(c)
		}
	}
}

// fieldParams are the URL parameters of the query fields the application
// layer's errors name (app.QueryError.Field): the app knows its queries'
// fields, web their names in the URL.
var fieldParams = map[string]string{
	"A": "a", "B": "b", "AB": "a and b", "Judge": "judge", "With": "with", "Sort": "sort", "Split": "split", "View": "view", "Branch": "branch",
}

// queryErrorText is an application-layer query error as the page says it:
// the URL parameter at fault, then what is wrong with it.
func queryErrorText(e *app.QueryError) string {
	if e.Field == "" {
		return e.Msg
	}
	name, ok := fieldParams[e.Field]
	if !ok {
		name = strings.ToLower(e.Field)
	}
	return name + ": " + e.Msg
}
