package web

import (
	"bytes"
	"math"
	"strconv"
	"testing"
)

func TestNeutralizeCell(t *testing.T) {
	for in, want := range map[string]string{
		"":                   "",
		"plain":              "plain",
		"=HYPERLINK(\"x\")":  "'=HYPERLINK(\"x\")",
		"+cmd|' /C calc'!A0": "'+cmd|' /C calc'!A0",
		"-2+3":               "'-2+3",
		"@SUM(A1)":           "'@SUM(A1)",
		"\t=1":               "'\t=1",
		"\r=1":               "'\r=1",
		"-0.5":               "-0.5",
		"+3":                 "+3",
		"-1e-05":             "-1e-05",
		"=1":                 "'=1",
		"a=b":                "a=b",
		"the-model @ 7":      "the-model @ 7",
		"NaN":                "NaN",
		" =1+1":              "' =1+1",
		"\u200b=1":           "'\u200b=1",
		"\ufeff@SUM(A1)":     "'\ufeff@SUM(A1)",
		"\u00a0\u2060-2+3":   "'\u00a0\u2060-2+3",
		"\uff1dHYPERLINK(1)": "'\uff1dHYPERLINK(1)",
		"\uff0b1":            "'\uff0b1",
		"\uff20A1":           "'\uff20A1",
		"\uff0d1":            "'\uff0d1",
		"+0x1p3":             "'+0x1p3",
		"-Inf":               "'-Inf",
		"+Inf":               "'+Inf",
		"-0x10":              "'-0x10",
		" -1":                "' -1",
		"12":                 "12",
		"-.5":                "-.5",
		"+1.5E+3":            "+1.5E+3",
		"0x1p3":              "0x1p3",
		"  ":                 "  ",
		"a =b":               "a =b",
	} {
		if got := neutralizeCell(in); got != want {
			t.Errorf("neutralizeCell(%q) = %q, want %q", in, got, want)
		}
	}
	var buf bytes.Buffer
	w := newCSVWriter(&buf)
	rec := []string{"=1+1", "-0.25"}
	if err := w.WriteAll([][]string{rec}); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != "'=1+1,-0.25\n" {
		t.Errorf("wrote %q", got)
	}
	if rec[0] != "=1+1" {
		t.Errorf("the caller's record was changed: %q", rec)
	}
}

// TestCSVFloat: the whole-number shortcut writes what strconv's 'g' does.
func TestCSVFloat(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 7, 10, 99, 100, 999999, -999999, 1e6, -1e6, 1e7, 1.5, -2.5, 0.1, 1e-7, 123456.75, math.MaxFloat64, math.SmallestNonzeroFloat64}
	for i := -2000; i <= 2000; i++ {
		vals = append(vals, float64(i), float64(i)*997, float64(i)/4)
	}
	for _, v := range vals {
		if got, want := csvFloat(v), strconv.FormatFloat(v, 'g', -1, 64); got != want {
			t.Errorf("csvFloat(%v) = %q, want %q", v, got, want)
		}
	}
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if got := csvFloat(v); got != "" {
			t.Errorf("csvFloat(%v) = %q, want empty", v, got)
		}
	}
}

// TestNeutralizeCellFastPath: the shortcut for cells that start with a
// plain ASCII character answers as the full check does, for every ASCII
// first byte followed by text, a number, a formula and nothing.
func TestNeutralizeCellFastPath(t *testing.T) {
	for c := range 128 {
		for _, tail := range []string{"", "x", "1", "=1+1", "@A1", "-2"} {
			cell := string(rune(c)) + tail
			if got, want := neutralizeCell(cell), neutralizeFull(cell); got != want {
				t.Errorf("neutralizeCell(%q) = %q, the full check %q", cell, got, want)
			}
		}
	}
}
