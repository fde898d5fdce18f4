// Package links builds the app's links, one builder per kind of route
// (issue #52): a page names the route it links to by a constant of this
// package, never by a path of its own, and web's TestLinksMatchRoutes
// sends every one of them to the router, so a link cannot drift from its
// route. Every id is escaped as one path segment: an id from an imported
// file can never change a link's shape.
package links

import (
	"net/url"
	"strings"

	"github.com/a-h/templ"
)

// ExpPage is a page or file under an experiment (/experiments/{exp}/…).
type ExpPage string

// The experiment's pages and files, as web/routes.go declares them.
const (
	Overview       ExpPage = ""
	ScoresCSV      ExpPage = "scores.csv"
	DimensionsCSV  ExpPage = "dimensions.csv"
	GateCSV        ExpPage = "gate.csv"
	Paired         ExpPage = "paired"
	PairedCSV      ExpPage = "paired.csv"
	Judges         ExpPage = "judges"
	JudgesCSV      ExpPage = "judges.csv"
	ScorersCSV     ExpPage = "scorers.csv"
	Compare        ExpPage = "compare"
	CompareCSV     ExpPage = "compare.csv"
	Units          ExpPage = "compare/units"
	UnitsCSV       ExpPage = "compare/units.csv"
	Crux           ExpPage = "crux"
	CruxCSV        ExpPage = "crux.csv"
	CruxFeatures   ExpPage = "crux-features.csv"
	RWR            ExpPage = "rwr"
	RWRCSV         ExpPage = "rwr.csv"
	Transfer       ExpPage = "transfer"
	TransferCSV    ExpPage = "transfer.csv"
	Cycles         ExpPage = "cycles"
	CyclesCSV      ExpPage = "cycles.csv"
	RankingCSV     ExpPage = "ranking.csv"
	Judgments      ExpPage = "judgments"
	JudgmentsCSV   ExpPage = "judgments.csv"
	CorrelationCSV ExpPage = "correlations.csv"
)

// ExpPages are all of them, for the test that each is a route.
var ExpPages = []ExpPage{Overview, ScoresCSV, DimensionsCSV, GateCSV, Paired, PairedCSV, Judges, JudgesCSV, ScorersCSV,
	Compare, CompareCSV, Units, UnitsCSV, Crux, CruxCSV, CruxFeatures, RWR, RWRCSV, Transfer, TransferCSV, Cycles, CyclesCSV,
	RankingCSV, Judgments, JudgmentsCSV, CorrelationCSV}

// PairsPage is a page or file under a pairs dataset (/pairs/{dataset}/…).
type PairsPage string

// The pairs dataset's pages and files.
const (
	Explorer        PairsPage = ""
	PairsTableCSV   PairsPage = "table.csv"
	Models          PairsPage = "models"
	ModelsCSV       PairsPage = "models.csv"
	PairsRanking    PairsPage = "ranking.csv"
	PairsCycles     PairsPage = "cycles.csv"
	AnnotatorsCSV   PairsPage = "annotators.csv"
	OverviewCSV     PairsPage = "overview.csv"
	Comparisons     PairsPage = "comparisons"
	PairsCompare    PairsPage = "compare"
	PairsCompareCSV PairsPage = "compare.csv"
)

// PairsPages are all of them.
var PairsPages = []PairsPage{Explorer, PairsTableCSV, Models, ModelsCSV, PairsRanking, PairsCycles, AnnotatorsCSV, OverviewCSV,
	Comparisons, PairsCompare, PairsCompareCSV}

// RunPage is a page or file under a training run (/runs/{run}/…).
type RunPage string

// The run's page and files.
const (
	RunOverview    RunPage = ""
	CheckpointsCSV RunPage = "checkpoints.csv"
	MetricsCSV     RunPage = "metrics.csv"
	StrategiesCSV  RunPage = "strategies.csv"
)

// RunPages are all of them.
var RunPages = []RunPage{RunOverview, CheckpointsCSV, MetricsCSV, StrategiesCSV}

// Experiment is an experiment's page (or file) with the query q (nil or
// empty: none).
func Experiment(exp string, page ExpPage, q url.Values) templ.SafeURL {
	return join(q, append([]string{"experiments", exp}, pageSegments(string(page))...)...)
}

// ExperimentFigure is one of an experiment's figures (file: its name and
// format, "scores.svg").
func ExperimentFigure(exp, file string, q url.Values) templ.SafeURL {
	return join(q, "experiments", exp, "figures", file)
}

// Pairs is a pairs dataset's page (or file).
func Pairs(dataset string, page PairsPage, q url.Values) templ.SafeURL {
	return join(q, append([]string{"pairs", dataset}, pageSegments(string(page))...)...)
}

// PairsFigure is one of a pairs dataset's figures.
func PairsFigure(dataset, file string, q url.Values) templ.SafeURL {
	return join(q, "pairs", dataset, "figures", file)
}

// PairsComparison is one comparison of a pairs dataset.
func PairsComparison(dataset, id string, q url.Values) templ.SafeURL {
	return join(q, "pairs", dataset, "comparisons", id)
}

// Run is a training run's page (or file); key is "experiment:run".
func Run(key string, page RunPage, q url.Values) templ.SafeURL {
	return join(q, append([]string{"runs", key}, pageSegments(string(page))...)...)
}

// RunFigure is one of a run's figures.
func RunFigure(key, file string, q url.Values) templ.SafeURL {
	return join(q, "runs", key, "figures", file)
}

// Audits is the audit list under the filter q.
func Audits(q url.Values) templ.SafeURL { return join(q, "audits") }

// AuditsCSV is the audit list's export under the filter q.
func AuditsCSV(q url.Values) templ.SafeURL { return join(q, "audits.csv") }

// SideBySide is two audits' transcripts side by side.
func SideBySide(q url.Values) templ.SafeURL { return join(q, "audits", "side-by-side") }

// Audit is one audit's page; key is "experiment:audit".
func Audit(key string, q url.Values) templ.SafeURL { return join(q, "audits", key) }

// AuditTranscript is one audit's transcript as it was imported.
func AuditTranscript(key string) templ.SafeURL { return join(nil, "audits", key, "transcript.json") }

// Judgment is one pairwise judgment's page; key is "experiment:judgment".
func Judgment(key string) templ.SafeURL { return join(nil, "judgments", key) }

// Home is the home page.
func Home() templ.SafeURL { return "/" }

// pageSegments are a page's path segments ("" none; "compare/units" two).
func pageSegments(page string) []string {
	if page == "" {
		return nil
	}
	return strings.Split(page, "/")
}

// join is the path of segments under the root, each escaped, with q.
func join(q url.Values, segments ...string) templ.SafeURL {
	var b strings.Builder
	for _, s := range segments {
		b.WriteByte('/')
		b.WriteString(url.PathEscape(s))
	}
	if len(q) > 0 {
		b.WriteByte('?')
		b.WriteString(q.Encode())
	}
	return templ.SafeURL(b.String())
}
