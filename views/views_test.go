package views

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data/model"
)

// views builds and tests without the database: these run with
// CGO_ENABLED=0 too.

func TestOutcomeText(t *testing.T) {
	yes, no, q := true, false, 72.0
	for _, c := range []struct {
		r    model.AuditRow
		want string
	}{
		{model.AuditRow{FalsePositive: &yes}, "false positive"},
		{model.AuditRow{Detected: &yes}, "detected"},
		{model.AuditRow{Detected: &no}, "missed"},
		{model.AuditRow{Quality: &q}, "quality 72"},
		{model.AuditRow{}, ""},
	} {
		if got := OutcomeText(c.r); !strings.Contains(got, c.want) || (c.want == "" && got != "") {
			t.Errorf("OutcomeText(%+v) = %q, want %q", c.r, got, c.want)
		}
	}
}

// TestHomeEscapes renders the home page over names a hostile file could
// carry: they come out as text, never as markup.
func TestHomeEscapes(t *testing.T) {
	var buf bytes.Buffer
	s := model.Summary{
		Datasets:    []model.DatasetSummary{{ID: "d", Name: `<script>alert(1)</script>`, Comparisons: 3}},
		Experiments: []model.ExperimentSummary{{ID: "e", Name: `"><img src=x onerror=alert(2)>`, Audits: 2}},
	}
	// A watched file named like markup is escaped too.
	if err := Home(s, []model.Problem{{File: "<script>alert(3)</script>.json", Msg: "<img src=x>"}},
		&model.Problem{File: "<script>alert(4)</script>/manifest.json", Msg: "<img src=x onerror=alert(5)>"}).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, bad := range []string{"<script>alert", "<img src=x"} {
		if strings.Contains(out, bad) {
			t.Errorf("unescaped %q in the home page", bad)
		}
	}
	if !strings.Contains(out, "&lt;script&gt;") {
		t.Error("the dataset's name is missing")
	}
}

func TestNum(t *testing.T) {
	for _, c := range []struct {
		v    float64
		d    int
		want string
	}{{1.234, 2, "1.23"}, {-1e-17, 2, "0.00"}, {-0.004, 2, "0.00"}, {-0.006, 2, "-0.01"}, {math.NaN(), 1, Undefined}, {math.Inf(1), 1, Undefined}, {66.6, 0, "67"}} {
		if got := Num(c.v, c.d); got != c.want {
			t.Errorf("Num(%v, %d) = %q, want %q", c.v, c.d, got, c.want)
		}
	}
}

// TestThin: a cell is marked for few audits or a wide interval; the
// composite, whose N counts dimensions (at most 4), only for its width.
func TestThin(t *testing.T) {
	for _, c := range []struct {
		cell EstimateCell
		want bool
	}{
		{EstimateCell{Dim: "audit_quality", Value: 60, Lo: 55, Hi: 65, N: 40}, false},
		{EstimateCell{Dim: "audit_quality", Value: 60, Lo: 55, Hi: 65, N: 9}, true},
		{EstimateCell{Dim: "realism", Value: 60, Lo: 40, Hi: 80, N: 40}, true},
		{EstimateCell{Dim: "composite", Value: 50, Lo: 45, Hi: 55, N: 4}, false},
		{EstimateCell{Dim: "composite", Value: 50, Lo: 30, Hi: 70, N: 4}, true},
		{EstimateCell{Dim: "realism", Value: math.NaN(), N: 0}, false},
	} {
		if got := c.cell.Thin(); got != c.want {
			t.Errorf("%+v: Thin = %v, want %v", c.cell, got, c.want)
		}
	}
	if !strings.Contains(ThinNote, "fewer than 10 ") || !strings.Contains(ThinNote, "wider than 30 points") {
		t.Errorf("note %q does not state the constants", ThinNote)
	}
}
