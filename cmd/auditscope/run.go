package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/bucket"
	"github.com/auditscope/auditscope/data/lake"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/data/watch"
	"github.com/auditscope/auditscope/web"
)

// errHelpShown ends a run after --help printed the usage (exit 0).
var errHelpShown = errors.New("help shown")

// usageError is a bad command line (exit 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func exitCode(err error) int {
	var ue usageError
	switch {
	case err == nil, errors.Is(err, errHelpShown):
		return 0
	case errors.As(err, &ue):
		return 2
	}
	return 1
}

// run is the whole program: it parses args and runs one command.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return serve(ctx, nil, stdout, stderr)
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, topUsage)
		return errHelpShown
	case "version", "-version", "--version":
		return version(ctx, stdout)
	case "serve":
		return withUsage("serve", serve(ctx, args[1:], stdout, stderr))
	case "import":
		return withUsage("import", importCmd(ctx, args[1:], stdout, stderr))
	case "demo":
		return withUsage("demo", demoCmd(ctx, args[1:], stdout, stderr))
	case "export":
		return withUsage("export", exportCmd(ctx, args[1:], stdout, stderr))
	case "lake":
		return withUsage("lake", lakeCmd(ctx, args[1:], stdout, stderr))
	case "judges":
		return withUsage("judges", judgesCmd(ctx, args[1:], stdout, stderr))
	}
	if strings.HasPrefix(args[0], "-") {
		return serve(ctx, args, stdout, stderr)
	}
	return usageError{fmt.Sprintf("unknown command %q\nRun 'auditscope --help' for the commands.", args[0])}
}

// newFlags makes a flag set whose --help prints to stdout and whose errors
// are returned, not printed and exited on.
func newFlags(name, usage string, stdout, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fmt.Fprintln(fs.Output(), "\nFlags:")
		fs.PrintDefaults()
	}
	return fs
}

func parse(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	for _, a := range args {
		if isHelp(a) {
			fs.SetOutput(stdout)
			fs.Usage()
			return errHelpShown
		}
	}
	if err := quietParse(fs, args); err != nil {
		return err
	}
	return nil
}

// quietParse parses args without the flag package's own printing (the
// error, then the whole usage): the error is returned with the command's
// one-line usage, and main prints it once. The usage printed the error
// twice around a hundred lines of flags.
func quietParse(fs *flag.FlagSet, args []string) error {
	out := fs.Output()
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.SetOutput(out)
	if err == nil {
		return nil
	}
	var usage strings.Builder
	fs.SetOutput(&usage)
	fs.Usage()
	fs.SetOutput(out)
	short, _, _ := strings.Cut(usage.String(), "\n")
	return usageError{fmt.Sprintf("%v\n%s\nRun 'auditscope %s --help' for its flags.", err, short, fs.Name())}
}

// interleave lets flags follow positional arguments (serve data.json --db x).
func interleave(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := quietParse(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// notURL refuses paths given as URLs where only local paths are read: a
// URL taken as a path would make a folder named "s3:" in the working
// directory and use it as if it were the bucket. what names the flag or
// argument.
func notURL(what string, paths ...string) error {
	for _, p := range paths {
		if isURL(p) {
			return usageError{fmt.Sprintf("%s %q is a URL: %s is a local file (what is imported or watched, and the lake, can be in a bucket: s3://bucket/prefix)", what, p, what)}
		}
	}
	return nil
}

func isURL(p string) bool {
	scheme, _, ok := strings.Cut(p, "://")
	return ok && scheme != "" && !strings.ContainsAny(scheme, `/\.`)
}

func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("serve", "Usage: auditscope serve [--db FILE] [--addr HOST:PORT] [--read-only] [--watch DIR]... [--poll DURATION] [--lake DIR] [--slots N] [--wait DURATION] [--client-queue N] [--queue N] [PATH...]\n\nServes the dashboard. With no --db, no --watch and no PATH it serves the\nbuilt-in demo (synthetic data) from an in-memory database.\n\nWith --watch it imports every supported file under DIR, then follows it:\nnew and grown transcripts and logs are appended, changed bundles and\nAnnotatedPairs files imported again, and open pages pick the changes up\n(docs/WATCH.md).\n", stdout, stderr)
	dbPath := fs.String("db", "", "DuckDB database `file` (created if missing); empty: in-memory")
	addr := fs.String("addr", "127.0.0.1:8080", "`host:port` to listen on; the default is reachable only from this machine")
	readOnly := fs.Bool("read-only", false, "open the database read-only (nothing can be imported or changed)")
	memLimit := fs.String("memory-limit", "", "cap DuckDB's memory, e.g. `1GB` (default: 80% of the machine's memory)")
	name := fs.String("name", "", "dataset or experiment `name` for the imported PATHs")
	replace := fs.Bool("replace", false, "replace an existing dataset or experiment of the same name")
	eval, behavior := logFlags(fs)
	maxValue := maxValueFlag(fs)
	var watchDirs []string
	fs.Func("watch", "import every supported file under `DIR` (or s3://bucket/prefix, listed every --poll or 2s) and follow it while serving (repeatable)", func(v string) error {
		// interleave parses the flags again after each PATH: keep one of each.
		if !slices.Contains(watchDirs, v) {
			watchDirs = append(watchDirs, v)
		}
		return nil
	})
	lakeDir := fs.String("lake", "", "serve the Parquet lake in `DIR` or s3://bucket/prefix (read-only; written by auditscope lake write), following its manifest")
	lakeCache := fs.String("lake-cache", "", "with --lake s3://…: the `folder` its files are copied into (default: a folder for the lake in the user's cache folder); one server per folder")
	lakeCacheSize := sizeValue(10 << 30)
	fs.Var(&lakeCacheSize, "lake-cache-size", "with --lake s3://…: bound the local copies of its files at `size` (default 10GiB); files no longer served are removed, least recently used first")
	lakePoll := fs.Duration("lake-poll", 5*time.Second, "with --lake s3://…: read its manifest at most every `DURATION` (in the background: a request never waits for the bucket)")
	poll := fs.Duration("poll", 0, "with --watch: scan the folders every `DURATION` (e.g. 2s) instead of waiting for change notifications, for network filesystems")
	slots := fs.Int("slots", web.DefaultSlots(), "heavy pages (statistics, tables, figures, export chunks) computed at `N` at once")
	wait := fs.Duration("wait", web.DefaultWait, "how long a heavy page may wait for a slot before a 503 (`DURATION`)")
	clientQueue := fs.Int("client-queue", web.DefaultClientQueue, "heavy requests one client (address) may have waiting; more are refused at once (`N`)")
	queue := fs.Int("queue", 0, "heavy requests that may wait in all (`N`; 0: 12 per slot)")
	demoCache := fs.Bool("demo-cache", true, "with the built-in demo: keep it, once built, in the user's cache folder ($XDG_CACHE_HOME/auditscope) and open it from there on later starts of the same build")
	trusted := fs.String("trusted-proxies", "", "comma-separated `CIDRs` (or addresses) of reverse proxies whose X-Forwarded-For names the client, for the fair queue per client; default: none, the peer is the client")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	proxies, err := parseProxies(*trusted)
	if err != nil {
		return err
	}
	if *slots < 1 || *wait <= 0 || *clientQueue < 1 || *queue < 0 {
		return usageError{"--slots and --client-queue want a number from 1, --queue from 0 (12 per slot), --wait a positive duration"}
	}
	paths, err := interleave(fs, args)
	if err != nil {
		return err
	}
	if err := cmp.Or(notURL("--db", *dbPath), bucketURLs("--lake", []string{*lakeDir}), bucketURLs("--watch", watchDirs), bucketURLs("PATH", paths)); err != nil {
		return err
	}
	if *lakeDir != "" && (*dbPath != "" || len(paths) > 0 || len(watchDirs) > 0) {
		return usageError{"--lake serves a lake as it is: give it without --db, --watch or PATHs"}
	}
	// With --watch, --read-only keeps the dashboard from writing (it has
	// no writing routes) while the watched folders are still imported: the
	// database opens read-write for them.
	openReadOnly := *readOnly && len(watchDirs) == 0
	if *readOnly && len(paths) > 0 {
		return usageError{"--read-only cannot import PATHs; import them first with auditscope import"}
	}
	if *name != "" && len(paths) > 1 {
		return usageError{"--name names one import; give one PATH with it"}
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	start := time.Now()
	demoOnly := *dbPath == "" && *lakeDir == "" && len(paths) == 0 && len(watchDirs) == 0
	// served is what the pages read: the store, or the lake's store over it.
	store, served, closeStore, saveDemo, err := openServed(ctx, demoOnly, *demoCache, *lakeDir, lake.BucketOptions{Cache: *lakeCache, CacheSize: int64(lakeCacheSize), Every: *lakePoll},
		data.Options{Path: *dbPath, ReadOnly: openReadOnly, MemoryLimit: *memLimit, DiscardUnused: len(paths) > 0}, stderr, logger)
	if err != nil {
		return err
	}
	defer closeStore()
	// A server's queries free buffers the next ones need again: kept, not
	// returned to the system and faulted in anew (an audit page 53–76 →
	// 47–49 ms at a million audits).
	data.KeepFreedPages() // before any import: each puts back what it found
	importOpts := data.ImportOptions{Name: *name, Replace: *replace, Eval: *eval, Behavior: *behavior, MaxValue: int64(*maxValue)}
	if len(paths) > 0 {
		if err := importPaths(ctx, store, paths, importOpts, stdout, stderr); err != nil {
			return err
		}
	}
	cfg := web.Config{Slots: *slots, Wait: *wait, ClientQueue: *clientQueue, Queue: *queue, TrustedProxies: proxies}
	if len(watchDirs) > 0 {
		stop, err := startWatch(ctx, store, logger, watchDirs, watch.Options{Poll: *poll, Import: data.ImportOptions{MaxValue: int64(*maxValue)}}, &cfg, stdout, stderr)
		if err != nil {
			return err
		}
		// The watcher stops, and its import in flight ends, before the
		// store closes (deferred earlier, so run later).
		defer stop()
	}
	return listen(ctx, served, logger, cfg, *addr, start, saveDemo, stdout)
}

// listen serves served on addr until ctx ends, saying where once ready
// (start is when serve began); a demo built now is kept (saveDemo) while
// pages are served, before listen returns.
func listen(ctx context.Context, served web.Store, logger *slog.Logger, cfg web.Config, addr string, start time.Time, saveDemo func(context.Context), stdout io.Writer) error {
	srv := web.New(served, logger, cfg)
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		go srv.WarmOnChange(ctx, 2*time.Second)
	}
	if err != nil {
		return err
	}
	url := "http://" + ln.Addr().String()
	if strings.HasPrefix(addr, "127.0.0.1:") {
		url = "http://localhost:" + strings.TrimPrefix(ln.Addr().String(), "127.0.0.1:")
	}
	fmt.Fprintf(stdout, "auditscope: serving on %s (ready in %s)\n", url, time.Since(start).Round(time.Millisecond))
	if saveDemo != nil {
		// Once pages are served: its work shares the cores with them.
		kept := make(chan struct{})
		go func() { defer close(kept); saveDemo(ctx) }()
		defer func() { <-kept }() // (run before the store closes)
	}
	return web.Serve(ctx, ln, srv.Handler(), logger)
}

// openServed opens what serve serves: the built-in demo (demoOnly; kept
// in the cache folder when cache), a lake (lakeDir), or the database of
// opts. served is what the pages read, store the database under it; close
// closes them; saveDemo, for a demo built now, keeps it for later starts.
func openServed(ctx context.Context, demoOnly, cache bool, lakeDir string, lo lake.BucketOptions, opts data.Options, stderr io.Writer, logger *slog.Logger) (store *data.Store, served web.Store, close func() error, saveDemo func(context.Context), err error) {
	switch {
	case demoOnly:
		// The first line comes at once (a silent start looked like a hung
		// one), and the demo built once is kept for later starts.
		path := ""
		if cache {
			path = demoCachePath()
		}
		if store, saveDemo, err = openDemo(ctx, path, opts.MemoryLimit, stderr, logger); err != nil {
			return nil, nil, nil, nil, err
		}
		return store, store, store.Close, saveDemo, nil
	case lakeDir != "":
		ls, err := openLake(ctx, lakeDir, opts.MemoryLimit, lo)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		return ls.Store, ls, ls.Close, nil, nil
	}
	if store, err = data.Open(ctx, opts); err != nil {
		return nil, nil, nil, nil, err
	}
	return store, store, store.Close, nil, nil
}

// startWatch imports the watched folders, then follows them while the
// pages are served; the pages' problems are the watcher's (cfg). stop ends
// it, and its import in flight.
func startWatch(ctx context.Context, store *data.Store, logger *slog.Logger, dirs []string, opts watch.Options, cfg *web.Config, stdout, stderr io.Writer) (stop func(), err error) {
	w, err := watch.New(store, logger, dirs, opts)
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithCancel(ctx)
	done := working(stderr, "importing "+strings.Join(dirs, ", "))
	err = w.Start(wctx)
	done()
	if err != nil {
		cancel()
		return nil, err
	}
	// From now on queries run beside its imports: an import's memory
	// bound leaves room for them.
	store.Serving()
	cfg.Problems = func() []model.Problem {
		var out []model.Problem
		for _, p := range w.Problems() {
			out = append(out, model.Problem{File: p.File, Msg: p.Msg})
		}
		return out
	}
	cfg.ProblemsVersion = w.ProblemsVersion
	fmt.Fprintf(stdout, "auditscope: watching %s\n", strings.Join(dirs, ", "))
	return func() { cancel(); <-w.Done() }, nil
}

func importCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("import", "Usage: auditscope import --db FILE [--name NAME] [--replace] [--eval KIND] [--behavior NAME] PATH...\n\nImports AnnotatedPairs .json files, preference .csv files, experiment\nbundles (folders or .zip), Petri transcripts and Inspect logs (.eval, .json;\na folder of them is one experiment) into the database, each in one\ntransaction: an import lands whole or not at all. Importing the same content\nagain is a no-op.\n\nA PATH may be s3://bucket/prefix (a folder: every object under it) or\ns3://bucket/key (one file), read with the standard AWS settings\n(docs/OBJECT-STORAGE.md): copied to a temporary folder, then imported as a\nlocal one, and recorded under its URL.\n", stdout, stderr)
	dbPath := fs.String("db", "", "DuckDB database `file` to import into (created if missing; required)")
	name := fs.String("name", "", "dataset or experiment `name` (default: from the file's metadata or its file name)")
	replace := fs.Bool("replace", false, "replace an existing dataset or experiment of the same name with different content")
	memLimit := fs.String("memory-limit", "", "cap DuckDB's memory, e.g. `1GB` (default: 80% of the machine's memory; while importing, 96MB for AnnotatedPairs and CSV files and 256MB for bundles and logs, raised for a row with a long text)")
	eval, behavior := logFlags(fs)
	maxValue := maxValueFlag(fs)
	texts := fs.String("texts", "", "for an annotation-only AnnotatedPairs file: a base dataset `file` (.csv, .jsonl or .parquet) to merge the prompts and responses from")
	textsKey := fs.String("texts-key", "conversation_id", "the comparisons' metadata `key`, and the base file's column, to merge by")
	textsPrompt := fs.String("texts-prompt", "prompt", "the base file's prompt `column` (empty: keep the prompts)")
	textsA := fs.String("texts-a", "text_a", "the base file's `column` of the first response")
	textsB := fs.String("texts-b", "text_b", "the base file's `column` of the second response")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	paths, err := interleave(fs, args)
	if err != nil {
		return err
	}
	if err := cmp.Or(notURL("--db", *dbPath), bucketURLs("PATH", paths)); err != nil {
		return err
	}
	if *dbPath == "" {
		return usageError{"import needs --db FILE"}
	}
	var merge *data.TextsMerge
	if *texts != "" {
		if len(paths) != 1 {
			return usageError{"--texts merges into one AnnotatedPairs file; give one PATH with it"}
		}
		merge = &data.TextsMerge{File: *texts, Key: *textsKey, Prompt: *textsPrompt, A: *textsA, B: *textsB}
	}
	if len(paths) == 0 {
		return usageError{"import needs at least one PATH"}
	}
	if *name != "" && len(paths) > 1 {
		return usageError{"--name names one import; give one PATH with it"}
	}
	// A failed import into a database that did not exist leaves no file
	// (data.Options.DiscardUnused).
	store, err := data.Open(ctx, data.Options{Path: *dbPath, MemoryLimit: *memLimit, DiscardUnused: true})
	if err != nil {
		return err
	}
	opts := data.ImportOptions{Name: *name, Replace: *replace, Eval: *eval, Behavior: *behavior, MaxValue: int64(*maxValue), Texts: merge}
	err = importPaths(ctx, store, paths, opts, stdout, stderr)
	if cerr := store.Close(); err == nil {
		err = cerr
	}
	return err
}

// importPaths imports the PATHs (one, or several in one transaction) and
// prints what each did. PATHs in a bucket are copied to a temporary folder
// first, then imported as local files; messages and the imports' records
// name their URLs.
func importPaths(ctx context.Context, store *data.Store, paths []string, opts data.ImportOptions, stdout, stderr io.Writer) error {
	f, err := fetch(ctx, paths)
	if err != nil {
		return err
	}
	defer f.close()
	optsOf := func(p string) data.ImportOptions {
		o := opts
		o.Source = f.urls[p]
		return o
	}
	var results []model.ImportResult
	if len(f.paths) > 1 {
		// Several PATHs land together or not at all.
		stop := working(stderr, "importing "+strings.Join(paths, ", "))
		results, err = store.ImportAll(ctx, f.paths, optsOf)
		stop()
		if err != nil {
			return f.errorf("%w\nnothing was imported: the %d PATHs land together or not at all", err, len(paths))
		}
	} else if results, err = importWithProgress(ctx, store, f.paths[0], optsOf(f.paths[0]), stderr); err != nil {
		return f.errorf("%w", err)
	}
	for _, r := range results {
		fmt.Fprintln(stdout, f.text(r.String()))
	}
	return nil
}

// bucketURLs refuses paths that are URLs other than s3://bucket/prefix
// (imports, --watch, --lake: local paths or a bucket); what names the flag
// or argument.
func bucketURLs(what string, paths []string) error {
	for _, p := range paths {
		if !isURL(p) {
			continue
		}
		if !bucket.IsURL(p) {
			return usageError{fmt.Sprintf("%s %q: a local path, or a bucket as s3://bucket/prefix", what, p)}
		}
		if _, _, err := bucket.Parse(p); err != nil {
			return usageError{what + " " + err.Error()}
		}
	}
	return nil
}

// fetched are the PATHs to import, those in a bucket copied to a local
// folder: urls maps each copy to its URL.
type fetched struct {
	dir   string
	paths []string
	urls  map[string]string
}

// fetch copies the PATHs that are s3:// URLs into a temporary folder (one
// folder each, so two prefixes of the same last name do not meet).
func fetch(ctx context.Context, paths []string) (*fetched, error) {
	f := &fetched{paths: slices.Clone(paths), urls: map[string]string{}}
	for i, p := range paths {
		if !bucket.IsURL(p) {
			continue
		}
		if f.dir == "" {
			dir, err := os.MkdirTemp("", "auditscope-fetch-")
			if err != nil {
				return nil, err
			}
			f.dir = dir
		}
		dir := filepath.Join(f.dir, strconv.Itoa(i))
		local, err := bucket.Fetch(ctx, p, dir)
		if err != nil {
			f.close()
			return nil, err
		}
		f.paths[i], f.urls[local] = local, strings.TrimSuffix(p, "/")
	}
	return f, nil
}

func (f *fetched) close() {
	if f.dir != "" {
		os.RemoveAll(f.dir)
	}
}

// text is s with the local copies' paths put back as their URLs.
func (f *fetched) text(s string) string {
	for local, u := range f.urls {
		s = strings.ReplaceAll(s, local, u)
	}
	return s
}

// errorf is fmt.Errorf with the local copies' paths put back as their
// URLs; the error keeps its exit code (a bad input exits 1).
func (f *fetched) errorf(format string, err error, args ...any) error {
	e := fmt.Errorf(format, append([]any{err}, args...)...)
	if len(f.urls) == 0 {
		return e
	}
	return &urlError{msg: f.text(e.Error()), err: err}
}

type urlError struct {
	msg string
	err error
}

func (e *urlError) Error() string { return e.msg }
func (e *urlError) Unwrap() error { return e.err }

// logFlags declares the flags that classify imported Petri transcripts and
// Inspect logs.
func logFlags(fs *flag.FlagSet) (eval, behavior *string) {
	eval = fs.String("eval", "", "for Petri transcripts and Inspect logs: the eval `kind` of every audit ("+strings.Join(model.Evals, ", ")+"); default: from tags and metadata, else audit_quality")
	behavior = fs.String("behavior", "", "for Petri transcripts and Inspect logs: the planted behavior `name` of every audit; default: from tags and metadata")
	return eval, behavior
}

// humanSize is a byte count for a person: 1.2 MB, 340 kB, 12 bytes.
func humanSize(n int64) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.0f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d bytes", n)
}

// flagSet reports whether the named flag was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// writeFileAtomic writes path through a temporary file beside it, so a
// killed run never leaves a partial file that a later benchmark would take
// for a whole one.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.part")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// sizeValue is a flag holding a byte size such as 96MiB, 1GB or 500000.
type sizeValue int64

var sizeRe = regexp.MustCompile(`^([0-9]+)\s*(B|KB|MB|GB|KiB|MiB|GiB)?$`)

func (v *sizeValue) String() string {
	if *v == 0 {
		return ""
	}
	return strconv.FormatInt(int64(*v), 10)
}

func (v *sizeValue) Set(s string) error {
	m := sizeRe.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return fmt.Errorf("want a size such as 256MiB or 1GB, got %q", s)
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return err
	}
	mult := map[string]int64{"": 1, "B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[m[2]]
	if n <= 0 || n > (1<<40)/mult {
		return fmt.Errorf("size %q out of range", s)
	}
	*v = sizeValue(n * mult)
	return nil
}

// maxValueFlag declares --max-value, the limit on one value of an input.
func maxValueFlag(fs *flag.FlagSet) *sizeValue {
	v := new(sizeValue)
	fs.Var(v, "max-value", "refuse an input with one value larger than `size` (a comparison, CSV record, JSONL line, transcript file, zip member or Inspect sample; default 96MiB); an import holds a few times this in memory")
	return v
}
