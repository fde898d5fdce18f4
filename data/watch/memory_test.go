package watch

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/demo"
	"github.com/auditscope/auditscope/data/internal/memlimit"
	"github.com/auditscope/auditscope/data/internal/peakmem"
)

// memHelperEnv, when set, makes TestWatchMemory a child: "cli:FILE" imports
// FILE into a database as auditscope import does; "watch:FILE" serves a
// database whose watched folder FILE grows into, and prints the resident
// memory it held before.
const memHelperEnv = "AUDITSCOPE_WATCH_MEM_HELPER"

// TestWatchMemory: an AnnotatedPairs file growing in a watched folder is
// imported within the memory bound of auditscope import, on top of what the
// server held before (plus the room left for pages, ServingHeadroomMiB).
// Before issue #27 a watched import ran at the server's limit (80% of the
// machine): a 577 MB file took the server from 68 to 654 MB, where the CLI
// import peaks at 194 MB.
func TestWatchMemory(t *testing.T) {
	if v := os.Getenv(memHelperEnv); v != "" {
		memChild(t, v)
		return
	}
	if testing.Short() {
		t.Skip("writes a 330 MB file and imports it twice; skipped with -short")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "big.json")
	f, err := os.Create(src)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := demo.ScaleAnnotatedPairs(w, demo.ScaleOptions{Comparisons: 120_000, Traits: 40, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	f.Close()
	run := func(mode string) (peak int64, out string) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestWatchMemory$", "-test.v")
		cmd.Env = append(os.Environ(), memHelperEnv+"="+mode+":"+src, "TMPDIR="+t.TempDir())
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s child: %v\n%s", mode, err, b)
		}
		peak, rest, err := peakmem.Read(b)
		if err != nil {
			t.Fatalf("%s child: %v\n%s", mode, err, b)
		}
		return peak, rest
	}
	cli, _ := run("cli")
	watched, out := run("watch")
	var before int64
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "before "); ok {
			before, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	if before == 0 {
		t.Fatalf("the watch child said nothing of its memory:\n%s", out)
	}
	bound := before + cli + (memlimit.ServingHeadroomMiB+48)<<20
	t.Logf("import: %d MiB peak; watched: %d MiB peak over %d MiB before; bound %d MiB", cli>>20, watched>>20, before>>20, bound>>20)
	if watched > bound {
		t.Errorf("a watched import peaked at %d MiB: more than the CLI's %d MiB plus the %d MiB the server held and %d MiB for pages",
			watched>>20, cli>>20, before>>20, memlimit.ServingHeadroomMiB)
	}
}

func memChild(t *testing.T, v string) {
	defer peakmem.Report(os.Stdout)
	mode, src, _ := strings.Cut(v, ":")
	ctx := context.Background()
	dir := t.TempDir()
	store, err := data.Open(ctx, data.Options{Path: filepath.Join(dir, "m.duckdb")})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if mode == "cli" {
		if _, err := store.Import(ctx, src, data.ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		return
	}
	folder := filepath.Join(dir, "runs")
	os.Mkdir(folder, 0o755)
	w := startWatch(t, store, folder, Options{Settle: 200 * time.Millisecond})
	store.Serving()
	fmt.Printf("before %d\n", residentBytes(t))
	// The file grows into the folder in 64 MiB steps, as a writer would.
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(filepath.Join(folder, "big.json"))
	if err != nil {
		t.Fatal(err)
	}
	for {
		n, err := io.CopyN(out, in, 64<<20)
		if n > 0 {
			time.Sleep(50 * time.Millisecond)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	out.Close()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		sum, err := store.Summary(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(sum.Datasets) == 1 && len(w.Problems()) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not imported: %s", problemsText(w))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// residentBytes is this process's resident memory now.
func residentBytes(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status")
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
