package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

// ffLoadPy times Feedback Forensics' loader (see the script).
//
//go:embed ff_load.py
var ffLoadPy []byte

// importRun is one `auditscope import`.
type importRun struct {
	wall          time.Duration
	rssMB, anonMB float64
}

// timeImport imports ap into a new database at db and measures it.
func timeImport(ctx context.Context, bin, db, ap string, stderr io.Writer) (importRun, error) {
	cmd := exec.CommandContext(ctx, bin, "import", "--db", db, ap)
	cmd.Stderr = stderr
	return measure(cmd, db, "import")
}

// measure runs cmd, which writes a new database at db (removed first), and
// returns its wall time, peak RSS (the kernel's high-water mark) and the
// peak of its allocated memory (sampled).
func measure(cmd *exec.Cmd, db, what string) (importRun, error) {
	os.Remove(db)
	os.Remove(db + ".wal")
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return importRun{}, fmt.Errorf("%s: %w", what, err)
	}
	anonc := make(chan float64, 1)
	go func() { anonc <- peakAnonMB(cmd.Process.Pid) }()
	if err := cmd.Wait(); err != nil {
		return importRun{}, fmt.Errorf("%s: %w", what, err)
	}
	wall := time.Since(t0)
	return importRun{wall: wall, anonMB: <-anonc,
		rssMB: float64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) / 1024}, nil
}

// medianImport sorts runs by time and returns the median one, with the
// largest memory of any run.
func medianImport(runs []importRun) importRun {
	slices.SortFunc(runs, func(a, b importRun) int { return int(a.wall - b.wall) })
	m := runs[len(runs)/2]
	for _, r := range runs {
		m.rssMB, m.anonMB = max(m.rssMB, r.rssMB), max(m.anonMB, r.anonMB)
	}
	return m
}

// ffRun is one run of ff_load.py: what it printed, and the process's wall
// time (Python's start and imports included).
type ffRun struct {
	Load    float64 `json:"load_s"`
	Rows    int     `json:"rows"`
	RSS     float64 `json:"max_rss_mib"`
	Decoder string  `json:"decoder"`
	wall    time.Duration
}

// ffAvailable says why Feedback Forensics' loader cannot be timed, or nil.
func ffAvailable(ctx context.Context, python string) error {
	out, err := exec.CommandContext(ctx, python, "-c", "import feedback_forensics.data.loader").CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:] // the exception, not the traceback
		}
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Errorf("%s cannot import feedback_forensics.data.loader (%s); install Feedback Forensics or point -ff-python or PYTHONPATH at it", python, msg)
	}
	return nil
}

// timeFF runs script (ff_load.py) on ap.
func timeFF(ctx context.Context, python, script, ap string) (ffRun, error) {
	t0 := time.Now()
	cmd := exec.CommandContext(ctx, python, script, ap)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return ffRun{}, fmt.Errorf("Feedback Forensics' loader: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	var r ffRun
	if err := json.Unmarshal(out, &r); err != nil {
		return ffRun{}, fmt.Errorf("Feedback Forensics' loader printed %q: %w", out, err)
	}
	if r.Load <= 0 || r.Rows == 0 {
		return ffRun{}, errors.New("Feedback Forensics' loader loaded nothing")
	}
	r.wall = time.Since(t0)
	return r, nil
}

// medianFF returns the run with the median load time.
func medianFF(runs []ffRun) ffRun {
	slices.SortFunc(runs, func(a, b ffRun) int {
		switch {
		case a.Load < b.Load:
			return -1
		case a.Load > b.Load:
			return 1
		}
		return 0
	})
	return runs[len(runs)/2]
}
