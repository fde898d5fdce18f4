package web

import (
	"bytes"
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
