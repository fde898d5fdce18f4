package bundle

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Write writes b as a bundle folder at dir (created if needed), with every
// transcript inline in audits.jsonl.
func Write(dir string, b *Bundle) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	exp, err := json.MarshalIndent(b.Experiment, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, FileExperiment), append(exp, '\n'), 0o644); err != nil {
		return err
	}
	if err := writeLines(filepath.Join(dir, FileRuns), b.Runs); err != nil {
		return err
	}
	if err := writeLines(filepath.Join(dir, FileAuditors), b.Auditors); err != nil {
		return err
	}
	if err := writeLines(filepath.Join(dir, FileAudits), b.Audits); err != nil {
		return err
	}
	if err := writeLines(filepath.Join(dir, FileJudgments), b.Judgments); err != nil {
		return err
	}
	if err := writeLines(filepath.Join(dir, FileCrux), b.Crux); err != nil {
		return err
	}
	if len(b.Metrics) > 0 {
		if err := writeLines(filepath.Join(dir, FileMetrics), b.Metrics); err != nil {
			return err
		}
	}
	if len(b.Verdicts) > 0 {
		return writeLines(filepath.Join(dir, FileVerdicts), b.Verdicts)
	}
	return nil
}

func writeLines[T any](path string, list []T) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i := range list {
		if err := enc.Encode(&list[i]); err != nil {
			return fmt.Errorf("%s line %d: %w", filepath.Base(path), i+1, err)
		}
	}
	return w.Flush()
}
