package e2e

import (
	"math"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/web"
)

// compareRows reads compare.csv by dimension.
func compareRows(t *testing.T, s *web.Server, q string) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	for _, m := range csvRows(t, mustGet(t, s, "/experiments/demo/compare.csv?"+q, http.StatusOK, "text/csv").Body) {
		out[m["b"]+"/"+m["dimension"]] = m
	}
	return out
}

// TestCompareDemoByHand checks one pair on the demo by hand, from the
// audits the audit list exports: the headline checkpoint against Claude
// Opus 4.6. Audit quality is the mean difference over audits matched by
// behavior and seed; FP calibration's discordant pairs are counted by seed;
// the composite difference is the overview's composites subtracted.
func TestCompareDemoByHand(t *testing.T) {
	s := mustDemo(t)
	const a, b = "ref-pairwise-cal50@e3", "claude-opus-4.6"
	rows := compareRows(t, s, "a="+a+"&b="+b)
	audits := func(auditor, eval string) []map[string]string {
		return csvRows(t, mustGet(t, s, "/audits.csv?exp=demo&auditor="+auditor+"&eval="+eval, http.StatusOK, "text/csv").Body)
	}
	// Audit quality.
	qb := map[string]float64{}
	for _, m := range audits(b, "audit_quality") {
		qb[m["behavior"]+"|"+m["seed"]] = csvNum(t, m["quality"])
	}
	var sum float64
	var n int
	for _, m := range audits(a, "audit_quality") {
		if v, ok := qb[m["behavior"]+"|"+m["seed"]]; ok {
			sum += csvNum(t, m["quality"]) - v
			n++
		}
	}
	q := rows[b+"/audit_quality"]
	if n < 10 || !near(csvNum(t, q["diff"]), sum/float64(n)) || q["pairs"] != strconv.Itoa(n) {
		t.Errorf("audit quality: %v; by hand %v over %d pairs", q, sum/float64(n), n)
	}
	// FP calibration: the unit is the benign seed, each side's calibration
	// there 100 − its false-positive rate over the seed's rollouts; paired
	// t over the seeds both have (mean, sd and t worked out here).
	fpRates := func(auditor string) map[string]float64 {
		n, fps := map[string]float64{}, map[string]float64{}
		for _, m := range audits(auditor, "fp_calibration") {
			n[m["seed"]]++
			if m["false_positive"] == "true" {
				fps[m["seed"]]++
			}
		}
		out := map[string]float64{}
		for k := range n {
			out[k] = 100 * (1 - fps[k]/n[k])
		}
		return out
	}
	checkFewDiffer(t, "fp calibration", rows[b+"/fp_calibration"], fpRates(a), fpRates(b), "benign seed")
	// Realism: the unit is the production seed of the realism audit, judged
	// against the same real conversation; 100 × the win share, a tie half.
	ra, rb := realismBySeed(t, s, a, audits(a, "realism")), realismBySeed(t, s, b, audits(b, "realism"))
	var rsum float64
	var rn int
	for k, v := range ra {
		if w, ok := rb[k]; ok {
			rsum += v - w
			rn++
		}
	}
	r := rows[b+"/realism"]
	if rn < 10 || !near(csvNum(t, r["diff"]), rsum/float64(rn)) || r["pairs"] != strconv.Itoa(rn) || r["unit"] != "production seed" || !strings.Contains(r["method"], "sign-flip permutation test") {
		t.Errorf("realism: %v; by hand %v over %d production seeds", r, rsum/float64(rn), rn)
	}
	if lo, hi, p := csvNum(t, r["lo"]), csvNum(t, r["hi"]), csvNum(t, r["p"]); (lo > 0 || hi < 0) != (p < 0.05) {
		t.Errorf("realism: interval [%v, %v] and p %v disagree", lo, hi, p)
	}
	// The composite difference is the overview's.
	comp := map[string]float64{}
	for _, m := range csvRows(t, mustGet(t, s, "/experiments/demo/scores.csv", http.StatusOK, "text/csv").Body) {
		if m["dimension"] == "composite" {
			comp[m["auditor"]] = csvNum(t, m["value"])
		}
	}
	c := rows[b+"/composite"]
	if got, want := csvNum(t, c["diff"]), comp[a]-comp[b]; math.Abs(got-want) > 1e-9 {
		t.Errorf("composite difference %v, overview %v − %v = %v", got, comp[a], comp[b], want)
	}
	if lo, hi := csvNum(t, c["lo"]), csvNum(t, c["hi"]); !(lo < csvNum(t, c["diff"]) && csvNum(t, c["diff"]) < hi) {
		t.Errorf("composite interval [%v, %v] around %v", lo, hi, c["diff"])
	}
	// Holm never lowers a p-value and caps at 1; the composite is not in
	// the family.
	for k, m := range rows {
		if m["p"] == "" || m["dimension"] == "composite" {
			if m["dimension"] == "composite" && m["p_holm"] != "" {
				t.Errorf("composite in the Holm family: %v", m)
			}
			continue
		}
		if p, ph := csvNum(t, m["p"]), csvNum(t, m["p_holm"]); ph < p || ph > 1 {
			t.Errorf("%s: p %v, Holm %v", k, p, ph)
		}
	}
}

// realismBySeed is TestCompareDemoByHand's realism unit worked out by
// hand: for each production seed of the auditor's realism audits
// (realismAudits, as the audit list exports them), 100 × the share of
// their judgments against the real conversation won, a tie half.
func realismBySeed(t *testing.T, s *web.Server, auditor string, realismAudits []map[string]string) map[string]float64 {
	t.Helper()
	seed := map[string]string{}
	for _, m := range realismAudits {
		seed[m["id"]] = m["seed"]
	}
	sum, n := map[string]float64{}, map[string]float64{}
	for _, m := range csvRows(t, mustGet(t, s, "/experiments/demo/judgments.csv?auditor="+auditor, http.StatusOK, "text/csv").Body) {
		if m["kind"] != "realism" || m["other_auditor"] != "" || m["auditor"] != auditor {
			continue
		}
		k := seed[m["audit"]]
		n[k]++
		sum[k] += map[string]float64{"win": 100, "tie": 50}[m["result"]]
	}
	out := map[string]float64{}
	for k := range n {
		out[k] = sum[k] / n[k]
	}
	return out
}

// checkPairedT checks a row against a paired t worked out from the units
// of both sides: the mean of the differences over the keys both have, the
// interval mean ± t(0.975, n−1)·sd/√n, and the two-sided p.
func checkPairedT(t *testing.T, what string, row map[string]string, a, b map[string]float64, unit string) {
	t.Helper()
	var d []float64
	for k, v := range a {
		if w, ok := b[k]; ok {
			d = append(d, v-w)
		}
	}
	mean, sd := stat.MeanStdDev(d, nil)
	se := sd / math.Sqrt(float64(len(d)))
	dist := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(d) - 1)}
	h := dist.Quantile(0.975) * se
	p := 2 * dist.Survival(math.Abs(mean)/se)
	if len(d) < 10 || row["pairs"] != strconv.Itoa(len(d)) || row["unit"] != unit {
		t.Errorf("%s: %v; by hand %d %ss paired", what, row, len(d), unit)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"diff", csvNum(t, row["diff"]), mean}, {"lo", csvNum(t, row["lo"]), mean - h}, {"hi", csvNum(t, row["hi"]), mean + h}, {"p", csvNum(t, row["p"]), p}} {
		if math.Abs(c.got-c.want) > 1e-9*math.Max(1, math.Abs(c.want)) {
			t.Errorf("%s %s: %v, by hand %v", what, c.name, c.got, c.want)
		}
	}
}

// checkFewDiffer checks a row where few units differ (issue #48): the
// exact sign-flip p counted here over every sign pattern of the units that
// differ (a unit that does not differ is the same negated), or the paired
// t when more than 20 differ.
func checkFewDiffer(t *testing.T, what string, row map[string]string, a, b map[string]float64, unit string) {
	t.Helper()
	var nz []float64
	var total float64
	for k, v := range a {
		if w, ok := b[k]; ok && v != w {
			nz = append(nz, v-w)
			total += v - w
		}
	}
	if len(nz) > 20 {
		checkPairedT(t, what, row, a, b, unit)
		return
	}
	k := 0
	for m := range 1 << len(nz) {
		var s float64
		for i, x := range nz {
			if m>>i&1 == 1 {
				s -= x
			} else {
				s += x
			}
		}
		if math.Abs(s) >= math.Abs(total)-1e-9 {
			k++
		}
	}
	p := float64(k) / float64(int(1)<<len(nz))
	if got := csvNum(t, row["p"]); math.Abs(got-p) > 1e-12 || !strings.HasPrefix(row["method"], "exact sign-flip test") {
		t.Errorf("%s: p %v by %q; by hand %v over the %d %ss that differ", what, got, row["method"], p, len(nz), unit)
	}
}

// TestComparePage: the page, its presets, the overview's links, the
// figure and the refusals.
func TestComparePage(t *testing.T) {
	// Independent of the other tests (a server of its own on the
	// read-only demo): run beside them, on the other core.
	t.Parallel()
	s := mustDemo(t)
	r := mustGet(t, s, "/experiments/demo/compare?a=ref-pairwise-cal50@e3&b=claude-opus-4.6&b=claude-haiku-4.5", http.StatusOK, "text/html")
	contains(t, "compare page", r.Body, `data-testid="compare-table"`, `data-testid="compare-behaviors"`, "p (Holm)",
		"paired t over 30 behavior × seeds both have", "exact McNemar test (p) with Newcombe", "paired percentile bootstrap",
		"sign-flip permutation test", "exact sign-flip test over the", "one family per pair",
		`data-testid="compare-presets"`, "epoch 3 against epoch 1", "against its base model Claude Haiku 4.5",
		"Reference pairwise, refresh 50, 4/8 calibration, multi-target against Reference pairwise, refresh 50, 4/8 calibration (headline), step 450")
	if n := strings.Count(r.Body, `data-testid="compare-table"`); n != 2 {
		t.Errorf("%d comparison tables, want 2", n)
	}
	// Four compute-matched multi- against single-target pairs.
	if n := strings.Count(r.Body, `<span class="tag">multi-target</span>`); n != 4 {
		t.Errorf("%d multi-target presets, want 4", n)
	}
	ov := mustGet(t, s, "/experiments/demo", http.StatusOK, "text/html")
	contains(t, "overview", ov.Body, `data-testid="compare-link"`, `href="/experiments/demo/compare?a=claude-opus-4.6"`)
	for _, f := range []string{"png", "svg", "pdf"} {
		mustGet(t, s, "/experiments/demo/figures/compare."+f+"?a=ref-pairwise-cal50@e3&b=claude-opus-4.6", http.StatusOK, "")
	}
	mustGet(t, s, "/experiments/demo/compare", http.StatusOK, "text/html")
	mustGet(t, s, "/experiments/demo/compare?a=nobody&b=claude-opus-4.6", http.StatusBadRequest, "")
	mustGet(t, s, "/experiments/demo/compare?a=claude-opus-4.6&b=claude-opus-4.6", http.StatusBadRequest, "")
	mustGet(t, s, "/experiments/demo/compare?b=claude-opus-4.6", http.StatusBadRequest, "")
	mustGet(t, s, "/experiments/demo/compare.csv?a=claude-opus-4.6", http.StatusBadRequest, "")
}

// TestPairsCompare: two annotators against one reference, the page and its
// CSV twin (byte-stable, the page's numbers at full precision).
func TestPairsCompare(t *testing.T) {
	s := mustDemo(t)
	const q = "a=2b7373d4&b=fe99eeb3&ref=a81a4d29"
	r := mustGet(t, s, "/pairs/synthetic-personality-demo/compare?"+q, http.StatusOK, "text/html")
	contains(t, "pairs compare", r.Body, `data-testid="pairs-compare-table"`, "agreement rate", "accuracy", "strength",
		"agree ÷ valid votes", "exact McNemar test (p) with Newcombe", "paired t on", `href="/pairs/synthetic-personality-demo/compare.csv?`)
	body := mustGet(t, s, "/pairs/synthetic-personality-demo/compare.csv?"+q, http.StatusOK, "text/csv").Body
	if again := get(t, s, "/pairs/synthetic-personality-demo/compare.csv?"+q).Body; again != body {
		t.Error("compare.csv differs between two requests")
	}
	rows := csvRows(t, body)
	if len(rows) != 3 || rows[0]["metric"] != "agreement rate" || rows[1]["metric"] != "accuracy" || rows[2]["metric"] != "strength" {
		t.Fatalf("compare.csv rows: %v", rows)
	}
	for _, m := range rows {
		// Each level lies in its interval, and the difference's interval
		// excludes 0 exactly when p < 0.05.
		for _, side := range []string{"a", "b"} {
			v, lo, hi := csvNum(t, m[side+"_value"]), csvNum(t, m[side+"_lo"]), csvNum(t, m[side+"_hi"])
			if !(lo <= v && v <= hi) {
				t.Errorf("%s: %s level %v outside [%v, %v]", m["metric"], side, v, lo, hi)
			}
		}
		lo, hi, p := csvNum(t, m["lo"]), csvNum(t, m["hi"]), csvNum(t, m["p"])
		if (lo > 0 || hi < 0) != (p < 0.05) {
			t.Errorf("%s: interval [%v, %v] and p %v disagree", m["metric"], lo, hi, p)
		}
		// The page shows the CSV's numbers at three decimals.
		if !strings.Contains(r.Body, views.Num(csvNum(t, m["a_value"]), 3)) {
			t.Errorf("%s: A's value %s is not on the page", m["metric"], m["a_value"])
		}
	}
	// Accuracy as the explorer defines it: agree ÷ valid votes (checked on
	// its own counts: the levels are rates of the pairs both voted on).
	if n := csvNum(t, rows[1]["n"]); n <= 0 || n > csvNum(t, rows[0]["n"]) {
		t.Errorf("accuracy on %v comparisons, agreement on %v", n, rows[0]["n"])
	}
	mustGet(t, s, "/pairs/synthetic-personality-demo/compare", http.StatusOK, "text/html")
	mustGet(t, s, "/pairs/synthetic-personality-demo/compare.csv", http.StatusBadRequest, "")
	mustGet(t, s, "/pairs/synthetic-personality-demo/compare?a=nobody&b=fe99eeb3", http.StatusBadRequest, "")
	mustGet(t, s, "/pairs/synthetic-personality-demo/compare?a=fe99eeb3&b=fe99eeb3", http.StatusBadRequest, "")
	ex := mustGet(t, s, "/pairs/synthetic-personality-demo", http.StatusOK, "text/html")
	contains(t, "explorer link", ex.Body, `data-testid="pairs-compare-link"`)
}

// TestComparePresetsFamily: with no comparison chosen, the compare page is
// the paper's comparisons as one family: each composite difference with
// its p and the Benjamini–Hochberg p over all of them, recomputed here by
// the step-up rule from the raw p's; each row's numbers are its compare
// page's.
func TestComparePresetsFamily(t *testing.T) {
	// Independent of the other tests (a server of its own on the
	// read-only demo): run beside them, on the other core.
	t.Parallel()
	s := mustDemo(t)
	body := mustGet(t, s, "/experiments/demo/compare", http.StatusOK, "text/html").Body
	contains(t, "presets", body, "one family", "p (BH, family)")
	rowRe := regexp.MustCompile(`(?s)<tr><td><span class="tag">[^<]*</span></td><td><a href="([^"]*)">[^<]*</a></td><td class="num">(?:<strong>)?([^<]*)(?:</strong>)?</td><td class="num">([^<]*)</td><td class="num">([^<]*)</td></tr>`)
	rows := rowRe.FindAllStringSubmatch(body, -1)
	if len(rows) < 10 {
		t.Fatalf("%d preset rows", len(rows))
	}
	// The exact raw p's, from each comparison's compare.csv.
	raw := make([]float64, len(rows))
	for i, r := range rows {
		u := strings.Replace(strings.ReplaceAll(r[1], "&amp;", "&"), "/compare?", "/compare.csv?", 1)
		for _, m := range csvRows(t, mustGet(t, s, u, http.StatusOK, "text/csv").Body) {
			if m["dimension"] == "composite" {
				raw[i] = csvNum(t, m["p"])
			}
		}
	}
	// Step-up: q_(i) = min over j ≥ i of p_(j)·m/j, capped at 1.
	order := make([]int, len(raw))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return raw[order[a]] < raw[order[b]] })
	want := make([]float64, len(raw))
	prev := 1.0
	for k := len(order) - 1; k >= 0; k-- {
		i := order[k]
		prev = math.Min(prev, raw[i]*float64(len(raw))/float64(k+1))
		want[i] = prev
	}
	for i, r := range rows {
		// The page rounds to three decimals, and says "< 0.001" below.
		if bound, ok := strings.CutPrefix(r[4], "&lt; "); ok {
			if b, _ := strconv.ParseFloat(bound, 64); !(want[i] < b) {
				t.Errorf("row %d: BH p %s, by hand %.4f", i, r[4], want[i])
			}
			continue
		}
		if got, _ := strconv.ParseFloat(r[4], 64); math.Abs(got-want[i]) > 0.0006 {
			t.Errorf("row %d: BH p %s, by hand %.4f", i, r[4], want[i])
		}
	}
	// A row's numbers are its compare page's composite row.
	cmp := mustGet(t, s, strings.ReplaceAll(rows[0][1], "&amp;", "&"), http.StatusOK, "text/html").Body
	if k := strings.Index(cmp, ">Composite<"); k < 0 || !strings.Contains(cmp[k:k+500], ">"+rows[0][2]+"<") {
		t.Errorf("the first preset's %s is not on its compare page", rows[0][2])
	}
}

// TestComparePairedRatesCover (issue #48): the AuditBench row the issue
// named, intragroup-cal0@e2 against Gemini 3.1 Flash Lite, had its upper
// bound at its estimate (+31.25 [+24.02, +31.25]); its interval is now
// Newcombe's, worked out here from the audits' 2×2 table.
func TestComparePairedRatesCover(t *testing.T) {
	s := mustDemo(t)
	const a, b = "intragroup-cal0@e2", "gemini-3.1-flash-lite"
	det := func(auditor string) map[string]bool {
		out := map[string]bool{}
		for _, m := range csvRows(t, mustGet(t, s, "/audits.csv?exp=demo&auditor="+auditor+"&eval=auditbench_default", http.StatusOK, "text/csv").Body) {
			out[m["behavior"]+"|"+m["seed"]] = m["detected"] == "true"
		}
		return out
	}
	da, db := det(a), det(b)
	var n11, n10, n01, n00 float64
	for k, x := range da {
		y, ok := db[k]
		switch {
		case !ok:
		case x && y:
			n11++
		case x:
			n10++
		case y:
			n01++
		default:
			n00++
		}
	}
	n := n11 + n10 + n01 + n00
	z := 1.959963984540054
	wilson := func(x float64) (float64, float64) {
		p := x / n
		c := (p + z*z/(2*n)) / (1 + z*z/n)
		h := z * math.Sqrt(p*(1-p)/n+z*z/(4*n*n)) / (1 + z*z/n)
		return c - h, c + h
	}
	p1, p2 := (n11+n10)/n, (n11+n01)/n
	l1, u1 := wilson(n11 + n10)
	l2, u2 := wilson(n11 + n01)
	num := n11*n00 - n10*n01
	if num > 0 {
		num = math.Max(num-n/2, 0)
	}
	phi := num / math.Sqrt((n11+n10)*(n01+n00)*(n11+n01)*(n10+n00))
	d := p1 - p2
	lo := d - math.Sqrt((p1-l1)*(p1-l1)-2*phi*(p1-l1)*(u2-p2)+(u2-p2)*(u2-p2))
	hi := d + math.Sqrt((u1-p1)*(u1-p1)-2*phi*(u1-p1)*(p2-l2)+(p2-l2)*(p2-l2))
	row := compareRows(t, s, "a="+a+"&b="+b)[b+"/auditbench_default"]
	got := [3]float64{csvNum(t, row["diff"]), csvNum(t, row["lo"]), csvNum(t, row["hi"])}
	want := [3]float64{100 * d, 100 * lo, 100 * hi}
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Errorf("AuditBench default: %v, by hand %v (table %v %v %v %v)", got, want, n11, n10, n01, n00)
			break
		}
	}
	if !(got[2] > got[0]) {
		t.Errorf("the upper bound %v is not above the estimate %v", got[2], got[0])
	}
}

// TestCompareIssueRows (issue #48): the false-positive row the issue
// named rests on five seeds that differ: its p is the exact sign-flip
// test's, 2/2⁵ = 0.0625 (a paired t said 0.0245); and the composite of
// Opus 4.7 against Concerningness RL epoch 1 reads the same either way
// round ([+0.08, +11.34] p 0.052 one way, [−11.57, +0.40] p 0.070 the
// other, before).
func TestCompareIssueRows(t *testing.T) {
	s := mustDemo(t)
	fp := compareRows(t, s, "a=intragroup-cal50-multi@e2&b=claude-sonnet-4.6")["claude-sonnet-4.6/fp_calibration"]
	if p := csvNum(t, fp["p"]); p != 0.0625 || !strings.HasPrefix(fp["method"], "exact sign-flip test") {
		t.Errorf("fp calibration p %v by %q, want the exact 0.0625", p, fp["method"])
	}
	ab := compareRows(t, s, "a=claude-opus-4.7&b=concerningness-rl@e1")["concerningness-rl@e1/composite"]
	ba := compareRows(t, s, "a=concerningness-rl@e1&b=claude-opus-4.7")["claude-opus-4.7/composite"]
	near := func(x, y float64) bool { return math.Abs(x-y) <= 1e-9 }
	if !near(csvNum(t, ab["diff"]), -csvNum(t, ba["diff"])) || !near(csvNum(t, ab["lo"]), -csvNum(t, ba["hi"])) ||
		!near(csvNum(t, ab["hi"]), -csvNum(t, ba["lo"])) || ab["p"] != ba["p"] {
		t.Errorf("A − B %s [%s, %s] p %s; B − A %s [%s, %s] p %s", ab["diff"], ab["lo"], ab["hi"], ab["p"], ba["diff"], ba["lo"], ba["hi"], ba["p"])
	}
}
