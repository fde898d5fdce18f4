package lake_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/bucket"
	"github.com/auditscope/auditscope/data/lake"
	"github.com/auditscope/auditscope/data/s3test"
)

// openBucket opens s3://lakes/PREFIX on the test's server.
func openBucket(t testing.TB, prefix string) *bucket.Bucket {
	t.Helper()
	b, err := bucket.Open(context.Background(), "s3://lakes/"+prefix)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// bucketManifest reads the lake's manifest from the bucket, with its ETag.
func bucketManifest(t testing.TB, b *bucket.Bucket) (lake.Manifest, string) {
	t.Helper()
	body, o, err := b.ReadAll(context.Background(), "manifest.json", 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	m, err := lake.ParseManifest("manifest.json", body)
	if err != nil {
		t.Fatal(err)
	}
	return m, o.ETag
}

// sameContent checks every lake table of l reads as the store's.
func sameContent(t testing.TB, s, l dbOf, what string) {
	t.Helper()
	want, got := contentState(t, s), contentState(t, l)
	for _, tb := range lake.Tables {
		if want[tb.Name] != got[tb.Name] {
			t.Errorf("%s: table %s differs between the store and the lake", what, tb.Name)
		}
	}
}

// changedAP is the AnnotatedPairs fixture with one byte of white space
// more: another content, so another generation, of the same dataset.
func changedAP(t testing.TB) string {
	t.Helper()
	b, _ := os.ReadFile(fixture(t, "annotated-pairs", "icai-example-v2-models.json"))
	p := filepath.Join(t.TempDir(), "icai-example-v2-models.json")
	os.WriteFile(p, append(b[:len(b)-2:len(b)-2], []byte("\n}\n")...), 0o644)
	return p
}

// TestBucketLake writes a lake into a bucket of a real S3-compatible server
// and serves it from there: every table reads back as the store's; every
// file carries its checksum, the manifest's; an unchanged store writes
// nothing (the manifest keeps its ETag); a new generation is followed in
// the background within the look interval; with the server down the last
// good state serves on and the problem is named, and once it is back the
// lake is followed again; a file damaged in the bucket is refused, named by
// its URL.
func TestBucketLake(t *testing.T) {
	srv := s3test.Start(t, "lakes")
	ctx := context.Background()
	s := lakeStore(t)
	b := openBucket(t, "team/one")
	res, err := lake.WriteBucket(ctx, s, b, lake.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Written) != 2 {
		t.Fatalf("first write: %+v", res)
	}
	m, tag := bucketManifest(t, b)
	if len(m.Files) != len(lake.Tables) {
		t.Fatalf("manifest records %d files, want %d", len(m.Files), len(lake.Tables))
	}
	checkBucketObjects(t, s, b, m, filepath.Join(srv.Root, "lakes", "team", "one"))
	if res, err := lake.WriteBucket(ctx, s, b, lake.WriteOptions{}); err != nil || len(res.Written) != 0 || len(res.Unchanged) != 2 {
		t.Fatalf("unchanged write: %+v, %v", res, err)
	}
	if _, tag2 := bucketManifest(t, b); tag2 != tag {
		t.Error("an unchanged store replaced the manifest")
	}
	cache := t.TempDir()
	l, err := lake.OpenBucket(ctx, b, "", lake.BucketOptions{Cache: cache, CacheSize: 1 << 30, Every: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	sameContent(t, s, l, "served from the bucket")
	// A second server on the same cache folder is refused (it would remove
	// files the first serves).
	if _, err := lake.OpenBucket(ctx, b, "", lake.BucketOptions{Cache: cache, CacheSize: 1 << 30, Every: time.Second}); err == nil || !strings.Contains(err.Error(), "--lake-cache") {
		t.Errorf("a second server on one cache: %v", err)
	}

	// A new generation of the dataset, followed in the background: the
	// request that finds the interval passed does not wait for it.
	name := m.Names("dataset")[0]
	if _, err := s.Import(ctx, changedAP(t), data.ImportOptions{Name: name, Replace: true}); err != nil {
		t.Fatal(err)
	}
	if res, err := lake.WriteBucket(ctx, s, b, lake.WriteOptions{}); err != nil || len(res.Written) != 1 {
		t.Fatalf("new generation: %+v, %v", res, err)
	}
	v := l.NameVersion(name)
	deadline := time.Now().Add(time.Minute)
	for l.NameVersion(name) == v {
		if time.Now().After(deadline) {
			t.Fatal("the new generation was not served within 10 s")
		}
		if changed, err := l.Refresh(ctx); changed || err != nil {
			t.Fatalf("a bucket lake's Refresh served in the request (%v) or failed (%v)", changed, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	sameContent(t, s, l, "the new generation")

	// The server down: the last good state serves on, the problem named.
	srv.Stop()
	if _, err := l.Sync(ctx); err == nil {
		t.Fatal("no error with the bucket out of reach")
	}
	if p := l.LakeProblem(); p == nil || !strings.Contains(p.File, "s3://lakes/team/one/manifest.json") || !strings.Contains(p.Msg, "cannot be read") {
		t.Errorf("problem: %+v", p)
	}
	sameContent(t, s, l, "with the bucket out of reach")
	srv.Restart()
	if _, err := l.Sync(ctx); err != nil || l.LakeProblem() != nil {
		t.Errorf("back: %v, problem %+v", err, l.LakeProblem())
	}

	// A file damaged in the bucket (one byte, same size): a server with an
	// empty cache refuses its dataset, naming the object, and serves the
	// rest (one bad file stopped the start).
	rel := lake.FileRel("ap_comparisons", "dataset", name, bucketGen(t, b, name))
	onDisk := filepath.Join(srv.Root, "lakes", "team", "one", filepath.FromSlash(rel))
	body, _ := os.ReadFile(onDisk)
	body[len(body)/2] ^= 0xff
	os.WriteFile(onDisk, body, 0o644)
	l2, err := lake.OpenBucket(ctx, b, "", lake.BucketOptions{Cache: t.TempDir(), CacheSize: 1 << 30, Every: time.Second})
	if err != nil {
		t.Fatalf("a start with a damaged object: %v", err)
	}
	defer l2.Close()
	if p := l2.LakeProblem(); p == nil || !strings.Contains(p.Error(), "s3://lakes/team/one/"+rel) || !strings.Contains(p.Error(), "SHA-256") {
		t.Errorf("damaged object: the problem is %+v", p)
	}
	if ds, err := l2.PairsDataset(ctx, name); err == nil {
		t.Errorf("the dataset with the damaged object is served: %+v", ds)
	}
}

// checkBucketObjects checks the lake written to the bucket b, whose
// server keeps its own copy under root: each file the manifest m records
// has the size and SHA-256 m gives it, and that SHA-256 in its object's
// metadata; docs/OBJECT-STORAGE.md's query counts the store s's audits.
// The first phase of TestBucketLake, apart so the test reads as its phases.
func checkBucketObjects(t *testing.T, s *data.Store, b *bucket.Bucket, m lake.Manifest, root string) {
	t.Helper()
	ctx := context.Background()
	for rel, f := range m.Files {
		// The server's own copy, read off its disk.
		body, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		sum := sha256.Sum256(body)
		if err != nil || f.Size != int64(len(body)) || f.SHA256 != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: manifest %+v, object %d bytes %x (%v)", rel, f, len(body), sum, err)
		}
		if h, err := b.Head(ctx, rel); err != nil || h.Meta["sha256"] != f.SHA256 {
			t.Errorf("%s: metadata %v (%v), want its SHA-256", rel, h.Meta, err)
		}
	}
	// docs/OBJECT-STORAGE.md's DuckDB query, on the server's own copy of
	// the bucket (httpfs, which reads s3:// URLs, is not at hand offline).
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int64
	if _, err := db.Exec(`SET VARIABLE gen = (SELECT json_extract_string(content, '$.experiments.small') FROM read_text(?))`, filepath.Join(root, "manifest.json")); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM read_parquet(? || getvariable('gen') || '/data.parquet')`, filepath.Join(root, "audits", "experiment=small", "gen=")).Scan(&n); err != nil || n != count(t, s, `SELECT count(*) FROM audits WHERE experiment = 'small'`) {
		t.Errorf("the documented query: %d audits, %v", n, err)
	}
}

func bucketGen(t testing.TB, b *bucket.Bucket, dataset string) string {
	m, _ := bucketManifest(t, b)
	return m.Datasets[dataset]
}

// TestBucketWritersMeet: two writers of one lake whose manifest writes
// meet. The one that loses reads the other's manifest, keeps its entries
// and tries again: both updates are in the lake. And a write that loses to
// a newer import of its own dataset is refused as a roll-back against the
// manifest it lost to, leaving that one as it is.
func TestBucketWritersMeet(t *testing.T) {
	s3test.Start(t, "lakes")
	ctx := context.Background()
	b := openBucket(t, "meet")
	ap := mustOpenStore(t)
	if _, err := ap.Import(ctx, fixture(t, "annotated-pairs", "icai-example-v2-models.json"), data.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	exp := mustOpenStore(t)
	if _, err := exp.Import(ctx, "../testdata/bundle-small", data.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	// The experiment's writer writes while the dataset's writer is about
	// to replace the manifest it read (none).
	var logged []string
	lake.SetBeforeManifest(func(attempt int) {
		if attempt == 1 {
			lake.SetBeforeManifest(nil)
			if _, err := lake.WriteBucket(ctx, exp, b, lake.WriteOptions{}); err != nil {
				t.Errorf("the other writer: %v", err)
			}
		}
	})
	defer lake.SetBeforeManifest(nil)
	res, err := lake.WriteBucket(ctx, ap, b, lake.WriteOptions{Log: func(s string) { logged = append(logged, s) }})
	if err != nil || len(res.Written) != 1 {
		t.Fatalf("the writer that lost the first round: %+v, %v", res, err)
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "another writer replaced the manifest first") {
		t.Errorf("log: %q", logged)
	}
	m, _ := bucketManifest(t, b)
	if len(m.Datasets) != 1 || len(m.Experiments) != 1 {
		t.Fatalf("a writer's update was lost: %+v %+v", m.Datasets, m.Experiments)
	}
	both := mustOpenStore(t)
	for _, p := range []string{fixture(t, "annotated-pairs", "icai-example-v2-models.json"), "../testdata/bundle-small"} {
		if _, err := both.Import(ctx, p, data.ImportOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	l, err := lake.OpenBucket(ctx, b, "", lake.BucketOptions{Cache: t.TempDir(), CacheSize: 1 << 30, Every: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	sameContent(t, both, l, "two writers' lake")
	l.Close()

	// Roll-back: three imports of the dataset, in this order: mid, older,
	// newer. The lake holds mid's. The older import's writer reads that
	// manifest; the newer import's write lands first; on its second round
	// the older one is refused against the manifest it lost to, which
	// stays the newer one's.
	name := m.Names("dataset")[0]
	doc := func(text string) []byte {
		return []byte(`{"comparisons":[{"id":"1","text_a":"` + text + `","text_b":"B","annotations":{"h":{"pref":"text_a"}}}]}`)
	}
	mid, older, newer := mustOpenStore(t), mustOpenStore(t), mustOpenStore(t)
	for i, st := range []*data.Store{mid, older, newer} {
		if _, err := st.ImportAnnotatedPairsBytes(ctx, doc(string(rune('a'+i))), "x.json", data.ImportOptions{Name: name}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := lake.WriteBucket(ctx, mid, b, lake.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	lake.SetBeforeManifest(func(attempt int) {
		if attempt == 1 {
			lake.SetBeforeManifest(nil)
			if _, err := lake.WriteBucket(ctx, newer, b, lake.WriteOptions{}); err != nil {
				t.Errorf("the newer writer: %v", err)
			}
		}
	})
	_, err = lake.WriteBucket(ctx, older, b, lake.WriteOptions{})
	var rb *lake.RollbackError
	if !errors.As(err, &rb) || rb.Superseded {
		t.Fatalf("an older import written over the newer one it lost to: %v", err)
	}
	m2, _ := bucketManifest(t, b)
	gens, _ := newer.Generations(ctx)
	if m2.Datasets[name] != gens[0].Gen || m2.Experiments["small"] != m.Experiments["small"] {
		t.Errorf("the manifest is not the newer writer's: %v %v", m2.Datasets, m2.Experiments)
	}
}

// bucketWriterEnv, when set (to a prefix of the bucket "lakes"), makes
// TestBucketKilledWriter the child: it writes the replaced store's lake
// there, saying "ready" first, until it is killed.
const bucketWriterEnv = "AUDITSCOPE_BUCKET_WRITER"

// replacedStore is lakeStore with its dataset replaced by other data.
func replacedStore(t *testing.T) *data.Store {
	t.Helper()
	s := lakeStore(t)
	gens, _ := s.Generations(context.Background())
	for _, g := range gens {
		if g.Family == "dataset" {
			doc := `{"comparisons":[{"id":"1","text_a":"A","text_b":"B","annotations":{"h":{"pref":"text_a"}}}]}`
			if _, err := s.ImportAnnotatedPairsBytes(context.Background(), []byte(doc), "x.json", data.ImportOptions{Name: g.Name, Replace: true}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return s
}

// TestBucketKilledWriter kills writers of a lake in a bucket at random
// points: a server that opens the lake then reads the old state or the new
// one, every table of one of them, never a mix; and the next write goes
// through.
func TestBucketKilledWriter(t *testing.T) {
	if p := os.Getenv(bucketWriterEnv); p != "" {
		s := replacedStore(t)
		os.Stdout.WriteString("ready\n")
		if _, err := lake.WriteBucket(context.Background(), s, openBucket(t, p), lake.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		return
	}
	s3test.Start(t, "lakes")
	ctx := context.Background()
	old, next := lakeStore(t), replacedStore(t)
	oldState, newState := contentState(t, old), contentState(t, next)
	if oldState["ap_comparisons"] == newState["ap_comparisons"] {
		t.Fatal("the two states do not differ")
	}
	kills := 6
	if testing.Short() {
		kills = 3
	}
	seen := map[string]int{}
	for i := range kills {
		p := "kill" + itoa(i)
		b := openBucket(t, p)
		if _, err := lake.WriteBucket(ctx, old, b, lake.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestBucketKilledWriter$")
		cmd.Env = append(os.Environ(), bucketWriterEnv+"="+p)
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if sc := bufio.NewScanner(out); !sc.Scan() || sc.Text() != "ready" {
			cmd.Process.Kill()
			t.Fatalf("kill %d: the writer did not start: %q", i, sc.Text())
		}
		time.Sleep(time.Duration(rand.IntN(300)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		l, err := lake.OpenBucket(ctx, b, "", lake.BucketOptions{Cache: t.TempDir(), CacheSize: 1 << 30, Every: time.Hour})
		if err != nil {
			t.Fatalf("kill %d: the lake does not open: %v", i, err)
		}
		got := contentState(t, l)
		l.Close()
		state := ""
		for _, tb := range lake.Tables {
			var which string
			switch got[tb.Name] {
			case oldState[tb.Name]:
				which = "old"
				if newState[tb.Name] == oldState[tb.Name] {
					continue // the same in both
				}
			case newState[tb.Name]:
				which = "new"
			default:
				t.Fatalf("kill %d: table %s is neither the old state nor the new", i, tb.Name)
			}
			if state != "" && state != which {
				t.Fatalf("kill %d: a mix of the old state and the new (table %s is %s's)", i, tb.Name, which)
			}
			state = which
		}
		seen[state]++
		if _, err := lake.WriteBucket(ctx, next, b, lake.WriteOptions{}); err != nil {
			t.Fatalf("kill %d: the write after it: %v", i, err)
		}
	}
	t.Logf("states after a kill: %v", seen)
}

// TestBucketCache: a server's cache holds the files it serves, each named
// by its SHA-256; after a new generation is served the old files go,
// least recently used first, until the cache is within its bound; a lake
// whose files alone are more than the bound is refused, naming the flag,
// and the last good state serves on; a damaged copy in the cache is
// fetched again, not served.
func TestBucketCache(t *testing.T) {
	s3test.Start(t, "lakes")
	ctx := context.Background()
	s := lakeStore(t)
	b := openBucket(t, "cache")
	if _, err := lake.WriteBucket(ctx, s, b, lake.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	m, _ := bucketManifest(t, b)
	var total int64
	for _, f := range m.Files {
		total += f.Size
	}
	cacheFiles := func(dir string) (n int, size int64) {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".parquet") {
				info, _ := e.Info()
				n, size = n+1, size+info.Size()
			}
		}
		return n, size
	}
	// Too small for the lake: refused at open, naming the flag.
	if _, err := lake.OpenBucket(ctx, b, "", lake.BucketOptions{Cache: t.TempDir(), CacheSize: total - 1, Every: time.Hour}); err == nil || !strings.Contains(err.Error(), "--lake-cache-size") {
		t.Errorf("a cache smaller than the lake: %v", err)
	}
	// Room for the lake and a little more: once the dataset's new
	// generation is served, the old generation's files are removed. A
	// partial copy a killed server left goes when the next one opens.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ".fetch-123"), []byte("half a file"), 0o644)
	l, err := lake.OpenBucket(ctx, b, "", lake.BucketOptions{Cache: dir, CacheSize: total + total/10, Every: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if l != nil {
			l.Close() // the last server opened
		}
	}()
	if n, size := cacheFiles(dir); n != len(m.Files) || size != total {
		t.Errorf("cache after open: %d files, %d bytes; want %d, %d", n, size, len(m.Files), total)
	}
	if _, err := os.Stat(filepath.Join(dir, ".fetch-123")); err == nil {
		t.Error("a partial copy left by a killed server stays in the cache")
	}
	name := m.Names("dataset")[0]
	next := replacedStore(t)
	if _, err := lake.WriteBucket(ctx, next, b, lake.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if changed, err := l.Sync(ctx); err != nil || !changed {
		t.Fatalf("sync: %v, %v", changed, err)
	}
	sameContent(t, next, l, "the new generation")
	m2, _ := bucketManifest(t, b)
	var total2 int64
	for _, f := range m2.Files {
		total2 += f.Size
	}
	n, size := cacheFiles(dir)
	if size > total+total/10 || size < total2 {
		t.Errorf("cache after the new generation: %d files, %d bytes; want the %d bytes served, within %d", n, size, total2, total+total/10)
	}
	for _, f := range m2.Files {
		if _, err := os.Stat(filepath.Join(dir, f.SHA256+".parquet")); err != nil {
			t.Errorf("a file served is not in the cache: %v", err)
		}
	}
	// A copy damaged in the cache (same size) while no server runs: the
	// next server on the cache checks it, fetches it again and serves the
	// bucket's data.
	l.Close()
	copy := filepath.Join(dir, m2.Files[lake.FileRel("ap_comparisons", "dataset", name, m2.Datasets[name])].SHA256+".parquet")
	body, _ := os.ReadFile(copy)
	body[len(body)/2] ^= 0xff
	os.WriteFile(copy, body, 0o644)
	l, err = lake.OpenBucket(ctx, b, "", lake.BucketOptions{Cache: dir, CacheSize: total + total/10, Every: time.Hour})
	if err != nil {
		t.Fatalf("a server on a cache with a damaged copy: %v", err)
	}
	sameContent(t, next, l, "a damaged copy fetched again")
	// Grown past the bound: the next manifest is refused, the last good
	// state serves on and the home page's problem names the flag.
	big := mustOpenStore(t)
	if _, err := big.Import(ctx, "../testdata/bundle-small", data.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := big.Import(ctx, fixture(t, "inspect", "docent-sample.eval"), data.ImportOptions{Name: "ctf"}); err != nil {
		t.Fatal(err)
	}
	if _, err := lake.WriteBucket(ctx, big, b, lake.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Sync(ctx); err == nil || l.LakeProblem() == nil || !strings.Contains(l.LakeProblem().Msg, "--lake-cache-size") {
		t.Errorf("a lake grown past the cache: %v, problem %+v", err, l.LakeProblem())
	}
	sameContent(t, next, l, "after a lake too large for the cache")
}

// TestBucketManifestChecksums: a manifest whose checksum for a file is not
// 64 hex digits is refused, naming it, before anything is fetched: a
// server's cache names its copies by the checksum, and "../x" would name a
// path outside it.
func TestBucketManifestChecksums(t *testing.T) {
	s3test.Start(t, "lakes")
	ctx := context.Background()
	b := openBucket(t, "sha")
	if _, err := lake.WriteBucket(ctx, lakeStore(t), b, lake.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	body, _, err := b.ReadAll(ctx, "manifest.json", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := bucketManifest(t, b)
	var sha string
	for _, f := range m.Files {
		sha = f.SHA256
		break
	}
	base := t.TempDir()
	cache := filepath.Join(base, "cache")
	for _, bad := range []string{"../../escaped", strings.ToUpper(sha), sha[:63]} {
		evil := strings.Replace(string(body), sha, bad, 1)
		if _, err := b.Put(ctx, "manifest.json", strings.NewReader(evil), int64(len(evil)), bucket.PutOptions{}); err != nil {
			t.Fatal(err)
		}
		_, err := lake.OpenBucket(ctx, b, "", lake.BucketOptions{Cache: cache, CacheSize: 1 << 30, Every: time.Hour})
		if err == nil || !strings.Contains(err.Error(), "SHA-256 of 64") {
			t.Errorf("checksum %q: %v", bad, err)
		}
	}
	if entries, _ := os.ReadDir(base); len(entries) != 1 {
		t.Errorf("the cache's parent holds %d entries, want the cache alone", len(entries))
	}
}
