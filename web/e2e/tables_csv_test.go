package e2e

import (
	"encoding/csv"
	"net/http"
	"strings"
	"testing"
)

func TestTableCSVs(t *testing.T) {
	s := mustDemo(t)
	tests := []struct {
		path, header string
		minRows      int
	}{
		{"/experiments/demo/correlations.csv?kind=checkpoint", "dimension_a,dimension_b,r,p,auditors,population,runs", 25},
		{"/experiments/demo/crux.csv", "dimension,checkpoints,runs,heldout_r2_rates,heldout_p_rates,heldout_r2_all,heldout_p_all,r2_rates,r2_rates_lo,r2_rates_hi,chance_r2_rates,loo_r2_rates,r2_all,r2_all_lo,r2_all_hi,chance_r2_all,loo_r2_all,method", 5},
		{"/experiments/demo/crux-features.csv", "checkpoint,target_focused,auditor_view,pairwise_win,pairwise_loss,d_signal,d_craft,d_realism,d_evidence", 40},
		{"/experiments/demo/rwr.csv", "auditor,split,behavior,n,wins,ties,losses,rwr,lo,hi,interval", 40},
		{"/experiments/demo/transfer.csv", "auditor,eval,behavior,n,detected,rate,lo,hi,interval", 50},
		{"/experiments/demo/cycles.csv?max=3", "length,cycle,edge_records,edge_p,p,finding,count_p", 1},
		{"/experiments/demo/ranking.csv", "auditor,log_strength,lo,hi,wins,losses,in_cycle,rank,anchor,interval", 3},
		{"/experiments/demo/judgments.csv?kind=realism", "judgment,kind,audit,auditor,other,other_auditor,behavior,split,result", 100},
		{"/runs/demo:ref-pairwise-cal50/checkpoints.csv", "auditor,epoch,step,dimension,value,lo,hi,n,interval", 21},
		{"/runs/demo:ref-pairwise-cal50/metrics.csv", "step,name,value", 10},
		{"/runs/demo:ref-pairwise-cal50/strategies.csv", "auditor,epoch,strategy,audits", 3},
	}
	for _, tt := range tests {
		r := mustGet(t, s, tt.path, http.StatusOK, "text/csv")
		if !strings.Contains(r.Header.Get("Content-Disposition"), ".csv") {
			t.Errorf("%s: no CSV file name", tt.path)
		}
		recs, err := csv.NewReader(strings.NewReader(r.Body)).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", tt.path, err)
		}
		if got := strings.Join(recs[0], ","); got != tt.header {
			t.Errorf("%s: header %q, want %q", tt.path, got, tt.header)
		}
		if len(recs)-1 < tt.minRows {
			t.Errorf("%s: %d rows, want at least %d", tt.path, len(recs)-1, tt.minRows)
		}
	}
}

func TestSweepFigures(t *testing.T) {
	s := mustDemo(t)
	r := mustGet(t, s, "/experiments/demo", http.StatusOK, "text/html")
	contains(t, "overview", r.Body, `data-testid="dose-figure"`, `data-testid="refresh-figure"`)
	mustGet(t, s, "/experiments/demo/figures/dose.svg?dim=fp_calibration", http.StatusOK, "image/svg+xml")
	mustGet(t, s, "/experiments/demo/figures/refresh.pdf?dim=composite", http.StatusOK, "application/pdf")
	mustGet(t, s, "/experiments/small/figures/dose.svg", http.StatusNotFound, "")
	r = mustGet(t, s, "/experiments/small", http.StatusOK, "text/html")
	if strings.Contains(r.Body, `data-testid="dose-figure"`) {
		t.Error("the small experiment has no calibration sweep but shows the figure")
	}
}
