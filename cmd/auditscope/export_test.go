package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExport writes a table and a figure from the built-in demo, and fails
// cleanly: an error is one line with the status and the message, and a page
// is refused unless the output is named .html.
func TestExport(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "scores.csv")
	if _, _, err := runCmd(t, "export", "/experiments/demo/scores.csv", "--out", csv); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(csv); !strings.HasPrefix(string(b), "auditor,dimension,value") {
		t.Errorf("scores.csv starts %.40q", b)
	}
	_, _, err := runCmd(t, "export", "/experiments/nope/scores.csv", "--out", filepath.Join(dir, "x.csv"))
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "HTTP 404") || strings.Contains(err.Error(), "<") {
		t.Errorf("missing experiment: %v", err)
	}
	_, _, err = runCmd(t, "export", "/experiments/demo", "--out", filepath.Join(dir, "page.csv"))
	if err == nil || !strings.Contains(err.Error(), "is a page, not a figure or a table") {
		t.Errorf("a page exported as a table: %v", err)
	}
	page := filepath.Join(dir, "page.html")
	if _, _, err := runCmd(t, "export", "/experiments/demo", "--out", page); err != nil {
		t.Errorf("a page asked for as .html: %v", err)
	}
}
