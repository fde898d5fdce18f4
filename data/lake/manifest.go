// Package lake is the Parquet lake (docs/FORMAT.md, "The Parquet lake"):
// its layout (the manifest and its versions, where each generation's files
// go, their checksums, the writer's lock), Write and WriteBucket (what a
// write puts where, the rule that it does not roll the lake back, the
// manifest replaced last) and Store, a data.Store that serves a lake in a
// folder or a bucket and follows its manifest (Reader keeps what it served
// between refreshes). The DuckDB statements stay in package data
// (Store.CopyPartition, Store.ServeFiles). In a folder, or under a bucket
// prefix (docs/OBJECT-STORAGE.md):
//
//	DIR/manifest.json
//	DIR/TABLE/dataset=NAME/gen=G/data.parquet      (AnnotatedPairs tables)
//	DIR/TABLE/experiment=NAME/gen=G/data.parquet   (experiment tables)
//
// A generation G names one content of a dataset or experiment: a hash of
// the imports that made it. Its files are written once and never changed;
// the manifest names the current generation of every dataset and
// experiment and is replaced atomically (in a folder written beside, then
// renamed; in a bucket by a conditional write over the one the writer
// read), so a reader sees the old state or the new one, never a mix.
package lake

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/auditscope/auditscope/data/model"
)

// Manifest is manifest.json.
type Manifest struct {
	Format      string            `json:"format"` // "auditscope-lake"
	Version     int               `json:"version"`
	Written     string            `json:"written"`
	Datasets    map[string]string `json:"datasets"`    // dataset id -> generation
	Experiments map[string]string `json:"experiments"` // experiment id -> generation
	Tables      map[string]Table  `json:"tables"`
	// Files are the data files of the generations named above, by their
	// path under the lake (TABLE/dataset=NAME/gen=G/data.parquet), with
	// their size and SHA-256: a server checks them before it serves a
	// generation. Lakes written before these fields have none; their files
	// are served unchecked.
	Files map[string]File `json:"files,omitempty"`
	// Imported is when the newest import of each named generation landed
	// ("dataset NAME" or "experiment NAME" -> RFC 3339), and Superseded the
	// generations each name had before, oldest first: a write that would
	// put an older import back is refused (WriteOptions.Force).
	Imported   map[string]string   `json:"imported,omitempty"`
	Superseded map[string][]string `json:"superseded,omitempty"`
}

// File is a data file as the writer left it.
type File struct {
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Table says how a table is laid out in the lake.
type Table struct {
	Partition string `json:"partition"` // dataset or experiment: the hive partition key
	Key       string `json:"key"`       // the table's column the partition holds (dropped from the files)
}

// ManifestVersion is the layout's version. Version 2 (migration 007)
// stores in ap_comparisons.votes only the votes its prefs codes do not tell
// whole; a reader of version 1 would miss the others on a comparison's
// page, so it refuses a version 2 lake rather than show it. This build
// reads both: version 1's votes list every vote, which its view reads too.
const ManifestVersion = 2

// manifestVersions are the versions this build reads.
var manifestVersions = []int{1, 2}

// A StoreTable is a table of the store that a lake holds, with the family
// of its partitions (dataset or experiment) and the column that names one.
// Since is the store's migration that added it (0 for the first lakes'):
// a generation written before has no file of it, and reads as empty.
type StoreTable struct {
	Name, Family, Key string
	Since             int
}

// Tables are the tables a lake holds.
var Tables = []StoreTable{
	{"ap_datasets", "dataset", "id", 0},
	{"ap_annotators", "dataset", "dataset", 0},
	{"ap_comparisons", "dataset", "dataset", 0},
	{"ap_meta", "dataset", "dataset", 0},
	{"experiments", "experiment", "id", 0},
	{"behaviors", "experiment", "experiment", 0},
	{"runs", "experiment", "experiment", 0},
	{"auditors", "experiment", "experiment", 0},
	{"audits", "experiment", "experiment", 0},
	{"audit_scores", "experiment", "experiment", 0},
	{"audit_transcripts", "experiment", "experiment", 0},
	{"judgments", "experiment", "experiment", 0},
	{"crux", "experiment", "experiment", 0},
	{"metrics", "experiment", "experiment", 0},
	{"experiment_dimensions", "experiment", "experiment", 0},
	{"inspect_logs", "experiment", "experiment", 0},
	{"sample_scores", "experiment", "experiment", 0},
	{"verdicts", "experiment", "experiment", 10},
	{"verdict_scores", "experiment", "experiment", 10},
	{"verdict_outcomes", "experiment", "experiment", 11},
}

// Gen is the generation the manifest names for a dataset or experiment.
func (m Manifest) Gen(family, name string) string {
	if family == "dataset" {
		return m.Datasets[name]
	}
	return m.Experiments[name]
}

// Names lists a manifest's datasets or experiments in name order.
func (m Manifest) Names(family string) []string {
	src := m.Datasets
	if family == "experiment" {
		src = m.Experiments
	}
	out := make([]string, 0, len(src))
	for n := range src {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// FileRel is a data file's path under the lake, slash-separated, as the
// manifest's Files name it.
func FileRel(table, family, name, gen string) string {
	return table + "/" + family + "=" + name + "/gen=" + gen + "/data.parquet"
}

// GenDir is where a table's generation of a dataset or experiment goes.
func GenDir(dir, table, family, name, gen string) string {
	return filepath.Join(dir, table, family+"="+name, "gen="+gen)
}

// checksum is a file's size and SHA-256.
func checksum(p string) (File, error) {
	f, err := os.Open(p)
	if err != nil {
		return File{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return File{}, fmt.Errorf("%s: %w", p, err)
	}
	return File{Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// ReadManifest reads dir's manifest. A missing one is os.ErrNotExist; a
// corrupt one is an *model.InputError naming the file.
func ReadManifest(dir string) (Manifest, error) {
	p := filepath.Join(dir, "manifest.json")
	b, err := os.ReadFile(p)
	if err != nil {
		return Manifest{}, err
	}
	return ParseManifest(p, b)
}

// ParseManifest decodes a manifest read from p.
func ParseManifest(p string, b []byte) (Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return Manifest{}, &model.InputError{File: p, Offset: -1, Msg: "not a lake manifest: " + err.Error()}
	}
	if m.Format != "auditscope-lake" || !slices.Contains(manifestVersions, m.Version) {
		return Manifest{}, &model.InputError{File: p, Offset: -1, Msg: fmt.Sprintf("format %q version %d: want auditscope-lake version %d or %d (a newer lake needs a newer auditscope)", m.Format, m.Version, manifestVersions[0], ManifestVersion)}
	}
	return m, nil
}

// writeManifest replaces dir's manifest atomically.
func writeManifest(dir string, m *Manifest) error {
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, ".manifest.json.tmp")
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("lake: %w", err)
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("lake: %w", err)
	}
	// On disk before the rename makes it the manifest.
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("lake: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("lake: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "manifest.json")); err != nil {
		return fmt.Errorf("lake: %w", err)
	}
	return SyncFile(dir)
}

// SyncFile flushes a file or folder to disk.
func SyncFile(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
