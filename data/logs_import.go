package data

import (
	"context"
	"fmt"
	"strings"

	"github.com/auditscope/auditscope/data/internal/digest"
	"github.com/auditscope/auditscope/data/logs"
	"github.com/auditscope/auditscope/data/model"
)

// Petri transcript files and Inspect logs are imported by presenting them
// as a bundle (a bundle.Source) to ImportBundle, so validation, atomicity,
// idempotency and storage are the bundle's: one experiment, one audit per
// transcript file or per Inspect sample × epoch, one baseline auditor per
// auditor model. docs/FORMAT.md describes the mapping.

// ImportPetri imports a Petri transcript file, or a folder of transcripts
// and Inspect logs (searched recursively), as one experiment.
func (s *Store) ImportPetri(ctx context.Context, path string, opts ImportOptions) (model.ImportResult, error) {
	return s.importLogs(ctx, path, opts)
}

// ImportInspect imports an Inspect log (.eval or .json), or a folder of
// logs and Petri transcripts (searched recursively), as one experiment.
func (s *Store) ImportInspect(ctx context.Context, path string, opts ImportOptions) (model.ImportResult, error) {
	return s.importLogs(ctx, path, opts)
}

func (s *Store) importLogs(ctx context.Context, path string, opts ImportOptions) (model.ImportResult, error) {
	if opts.Name != "" && !model.ValidName(opts.Name) {
		return model.ImportResult{}, fmt.Errorf("--name %q: use lower-case letters, digits, '.', '_' and '-' (e.g. %q)", opts.Name, model.Slugify(opts.Name))
	}
	if opts.Eval != "" && !model.IsEval(opts.Eval) {
		return model.ImportResult{}, fmt.Errorf("--eval %q: want one of %s", opts.Eval, strings.Join(model.Evals, ", "))
	}
	var hash string
	var err error
	if opts.Files != nil {
		if err := logs.CheckWithin(path, opts.Files); err != nil {
			return model.ImportResult{}, err
		}
		hash, err = digest.Files(path, opts.Files)
	} else {
		hash, err = digest.Tree(path)
	}
	if err != nil {
		return model.ImportResult{}, fmt.Errorf("import %s: %w", path, err)
	}
	if opts.PrefixLogs {
		// Prefixed ids are other content than the same files imported
		// without (auditscope import of a folder of one log).
		hash = digest.Bytes([]byte(hash + "\x00prefix-logs"))
	}
	if opts.Eval != "" || opts.Behavior != "" {
		// The flags change what is imported: the same files with other
		// flags are other content.
		hash = digest.Bytes([]byte(hash + "\x00eval=" + opts.Eval + "\x00behavior=" + opts.Behavior))
	}
	if r, ok, err := s.alreadyImported(ctx, model.KindPetri, opts.Name, hash); err != nil || ok {
		return r, err
	}
	src, err := logs.Open(ctx, path, logOptions(opts))
	if err != nil {
		return model.ImportResult{}, err
	}
	return s.ImportBundle(ctx, src, hash, opts)
}

// logOptions are an import's options that the logs reader takes.
func logOptions(o ImportOptions) logs.Options {
	return logs.Options{Eval: o.Eval, Behavior: o.Behavior, MaxValue: o.MaxValue, Files: o.Files, PrefixLogs: o.PrefixLogs, Source: o.Source}
}
