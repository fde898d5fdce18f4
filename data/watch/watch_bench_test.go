package watch

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/auditscope/auditscope/data"
)

// transcript is a small Petri transcript with the given id.
func transcript(b testing.TB, id string) []byte {
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "petri", "legacy.json"))
	if err != nil {
		b.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		b.Fatal(err)
	}
	doc["metadata"].(map[string]any)["transcript_id"] = id
	out, err := json.Marshal(doc)
	if err != nil {
		b.Fatal(err)
	}
	return out
}

// watchedFolder writes n transcripts into a new folder and starts a
// watcher on it, which imports them.
func watchedFolder(b *testing.B, n int, opts Options) (*data.Store, *Watcher, string) {
	dir := filepath.Join(b.TempDir(), "lab")
	os.Mkdir(dir, 0o755)
	for i := range n {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("t-%05d.json", i)), transcript(b, fmt.Sprintf("t-%05d", i)), 0o644)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	store, err := data.Open(ctx, data.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	opts.Settle = time.Millisecond
	w, err := New(store, slog.New(slog.NewTextHandler(io.Discard, nil)), []string{dir}, opts)
	if err != nil {
		b.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond)
	if err := w.Start(ctx); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cancel(); <-w.Done() })
	return store, w, dir
}

// audits is how many audits the experiment lab holds.
func audits(b *testing.B, store *data.Store) int {
	total, err := store.CountAudits(context.Background(), data.AuditFilter{Experiment: "lab"})
	if err != nil {
		b.Fatal(err)
	}
	return total
}

// BenchmarkWatchNewTranscript: one new transcript in a watched folder of
// 1,000 or 10,000, from the file written to its audit in the store, as the
// change notification's sync does it (settle time aside). The cost follows
// the new file, not the folder: the two sizes should take about the same.
func BenchmarkWatchNewTranscript(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			store, w, dir := watchedFolder(b, n, Options{})
			if got := audits(b, store); got != n {
				b.Fatalf("%d audits after the start, want %d", got, n)
			}
			r := w.roots[0]
			i := n
			for b.Loop() {
				p := filepath.Join(dir, fmt.Sprintf("t-%05d.json", i))
				os.WriteFile(p, transcript(b, fmt.Sprintf("t-%05d", i)), 0o644)
				i++
				// The watcher's own loop would run the same sync; it is
				// stopped from racing this one by the sync lock, and waits
				// for the settle time first.
				old := time.Now().Add(-time.Second)
				os.Chtimes(p, old, old)
				if _, err := w.syncPaths(context.Background(), r, []string{p}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			time.Sleep(50 * time.Millisecond)
			if got := audits(b, store); got != i {
				b.Fatalf("%d audits, want %d", got, i)
			}
		})
	}
}

// BenchmarkWatchShows10k: end to end with change notifications and the
// default settle time (300 ms): a transcript written into a watched folder
// of 10,000 until the store serves it. Target: within 1 s.
func BenchmarkWatchShows10k(b *testing.B) {
	store, w, dir := watchedFolder(b, 10000, Options{})
	w.opts.Settle = 300 * time.Millisecond
	i := 10000
	for b.Loop() {
		p := filepath.Join(dir, fmt.Sprintf("t-%05d.json", i))
		os.WriteFile(p, transcript(b, fmt.Sprintf("t-%05d", i)), 0o644)
		i++
		for audits(b, store) != i {
			time.Sleep(5 * time.Millisecond)
		}
	}
}
