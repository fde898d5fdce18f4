package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// The server's resident memory, sampled from /proc while a run lasts
// (-pid).

// memStats is a process's resident memory in KiB: VmRSS (now) and VmHWM
// (its peak since the process started).
type memStats struct{ rssKB, hwmKB int64 }

// readMem reads VmRSS and VmHWM from /proc/PID/status.
func readMem(pid int) (memStats, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memStats{}, fmt.Errorf("read the server's memory: %w", err)
	}
	var m memStats
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			m.rssKB = parseKB(v)
		} else if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			m.hwmKB = parseKB(v)
		}
	}
	return m, nil
}

func parseKB(v string) int64 {
	n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
	return n
}

// memSampler samples a process's resident memory until stopped.
type memSampler struct {
	stopc chan struct{}
	done  chan memStats
}

func startMemSampler(pid int, every time.Duration) *memSampler {
	s := &memSampler{stopc: make(chan struct{}), done: make(chan memStats, 1)}
	go func() {
		var peak memStats
		sample := func() {
			if m, err := readMem(pid); err == nil {
				peak = memStats{rssKB: max(peak.rssKB, m.rssKB), hwmKB: m.hwmKB}
			}
		}
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			sample()
			select {
			case <-t.C:
			case <-s.stopc:
				sample()
				s.done <- peak
				return
			}
		}
	}()
	return s
}

// stop ends the sampling and returns the largest VmRSS sampled and the
// last VmHWM.
func (s *memSampler) stop() memStats {
	close(s.stopc)
	return <-s.done
}
