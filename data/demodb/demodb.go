// Package demodb loads the built-in demo (package demo's generated
// experiment, pairs and fixture files) into a store. It is apart from the
// generators so that what only needs their bytes (the format packages'
// tests and fuzzers) does not link the store and DuckDB.
package demodb

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/bundle"
	"github.com/auditscope/auditscope/data/demo"
	"github.com/auditscope/auditscope/data/model"
)

// Load imports the whole demo into the store: the synthetic experiment, the
// synthetic AnnotatedPairs dataset and the real fixture files. The long
// judge-score table is left to s.BuildPendingScores, which the caller runs
// in the background once it serves (score filters work meanwhile).
func Load(ctx context.Context, s *data.Store) ([]model.ImportResult, error) {
	return LoadSized(ctx, s, demo.Options{})
}

// LoadSized is Load with the synthetic experiment made by opts (its size,
// its seed): the fuzz targets serve a demo of a tenth of the size, which
// loads in a second where the whole one takes ten, in each fuzzing worker.
func LoadSized(ctx context.Context, s *data.Store, opts demo.Options) ([]model.ImportResult, error) {
	// The experiment and the pairs datasets go into different tables, so
	// they load side by side in their own transactions.
	var expRes model.ImportResult
	var expErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		expRes, expErr = loadExperiment(ctx, s, opts)
	}()
	var out []model.ImportResult
	var buf bytes.Buffer
	err := demo.AnnotatedPairs(&buf, demo.Options{})
	if err == nil {
		var r model.ImportResult
		r, err = s.ImportAnnotatedPairsBytes(ctx, buf.Bytes(), "built-in demo annotated pairs", data.ImportOptions{Synthetic: true})
		if err != nil {
			err = fmt.Errorf("demo annotated pairs: %w", err)
		}
		out = append(out, r)
	}
	if err == nil {
		var rs []model.ImportResult
		rs, err = loadFixtures(ctx, s)
		out = append(out, rs...)
	}
	if err == nil {
		var r model.ImportResult
		r, err = loadPetri(ctx, s, demo.DemoPetriOptions)
		out = append(out, r)
	}
	<-done
	if expErr != nil {
		return nil, fmt.Errorf("demo experiment: %w", expErr)
	}
	if err != nil {
		return nil, err
	}
	return append([]model.ImportResult{expRes}, out...), nil
}

func loadExperiment(ctx context.Context, s *data.Store, opts demo.Options) (model.ImportResult, error) {
	b := demo.Experiment(opts)
	return s.ImportBundle(ctx, bundle.FromBundle(b, "built-in demo", false), fmt.Sprintf("%s-seed%d", demo.GeneratorVersion, opts.Seed),
		data.ImportOptions{Synthetic: true, Transcripts: transcriptSource(b), DeferScores: true})
}

// transcriptSource serves b's transcripts (hundreds of MB of JSON),
// marshalled when a page asks for one, not at start-up.
func transcriptSource(b *bundle.Bundle) func(string) ([]byte, error) {
	byID := make(map[string]*bundle.Audit, len(b.Audits))
	for i := range b.Audits {
		byID[b.Audits[i].ID] = &b.Audits[i]
	}
	return func(id string) ([]byte, error) {
		a, ok := byID[id]
		if !ok || a.Transcript == nil {
			return nil, fmt.Errorf("demo has no transcript for audit %q: %w", id, data.ErrNotFound)
		}
		return json.Marshal(a.Transcript)
	}
}

// Reopened serves the demo's transcripts from a store opened from a saved
// copy of the demo (Store.SaveCopy), which holds everything but them: the
// demo is generated again, as Load does, the first time a page asks for
// one (about a third of a second), not at start-up.
func Reopened(s *data.Store) {
	var once sync.Once
	var src func(string) ([]byte, error)
	s.ServeTranscripts(demo.ExperimentID, func(id string) ([]byte, error) {
		once.Do(func() { src = transcriptSource(demo.Experiment(demo.Options{})) })
		return src(id)
	})
}

// loadFixtures imports the embedded fixture files. The CSV importer reads
// from a path, so CSVs go through a temporary file.
func loadFixtures(ctx context.Context, s *data.Store) ([]model.ImportResult, error) {
	entries, err := fs.ReadDir(demo.Fixtures, "fixtures")
	if err != nil {
		return nil, err
	}
	var out []model.ImportResult
	for _, e := range entries {
		body, err := demo.Fixtures.ReadFile("fixtures/" + e.Name())
		if err != nil {
			return nil, err
		}
		name := model.Slugify(strings.TrimSuffix(e.Name(), filepath.Ext(e.Name())))
		var r model.ImportResult
		if strings.HasSuffix(e.Name(), ".json") {
			r, err = s.ImportAnnotatedPairsBytes(ctx, body, e.Name(), data.ImportOptions{Name: name})
		} else {
			r, err = importCSVBytes(ctx, s, e.Name(), body, name)
		}
		if err != nil {
			return nil, fmt.Errorf("demo fixture %s: %w", e.Name(), err)
		}
		out = append(out, r)
	}
	return out, nil
}

func importCSVBytes(ctx context.Context, s *data.Store, file string, body []byte, name string) (model.ImportResult, error) {
	dir, err := os.MkdirTemp("", "auditscope-demo-")
	if err != nil {
		return model.ImportResult{}, err
	}
	defer os.RemoveAll(dir)
	p := filepath.Join(dir, file)
	if err := os.WriteFile(p, body, 0o600); err != nil {
		return model.ImportResult{}, err
	}
	return s.ImportPreferenceCSV(ctx, p, data.ImportOptions{Name: name})
}

// loadPetri imports the demo's Petri-shaped experiment.
func loadPetri(ctx context.Context, s *data.Store, o demo.PetriOptions) (model.ImportResult, error) {
	b, err := demo.PetriBundle(o)
	if err != nil {
		return model.ImportResult{}, fmt.Errorf("demo petri experiment: %w", err)
	}
	r, err := s.ImportBundle(ctx, bundle.FromBundle(b, "built-in demo petri transcripts", false), fmt.Sprintf("%s-petri-seed%d", demo.GeneratorVersion, o.Seed),
		data.ImportOptions{Synthetic: true})
	if err != nil {
		return r, fmt.Errorf("demo petri experiment: %w", err)
	}
	return r, nil
}
