package data

import (
	"context"
	"errors"
	"fmt"

	"github.com/auditscope/auditscope/data/annotatedpairs"
	"github.com/auditscope/auditscope/data/internal/digest"
	"github.com/auditscope/auditscope/data/internal/imports"
	"github.com/auditscope/auditscope/data/internal/regular"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/data/preferencecsv"
)

// ImportPreferenceCSV imports a preference CSV as Feedback Forensics'
// csv_to_ap reads it: text_a, text_b and preferred_text, optional model_a,
// model_b and prompt (or input); every other column becomes metadata.
func (s *Store) ImportPreferenceCSV(ctx context.Context, path string, opts ImportOptions) (res model.ImportResult, err error) {
	hash, err := digest.File(path)
	if err != nil {
		return model.ImportResult{}, fmt.Errorf("import %s: %w", path, err)
	}
	if r, ok, err := s.alreadyImported(ctx, model.KindPreferenceCSV, opts.Name, hash); err != nil || ok {
		return r, err
	}
	f, err := regular.Open(path)
	if err != nil {
		return model.ImportResult{}, fmt.Errorf("import %s: %w", path, err)
	}
	defer f.Close()
	st, _ := f.Stat()
	r := &countingReader{r: f, total: st.Size(), progress: opts.Progress}
	err = s.mem.Import(ctx, streamImportMemoryMiB, func() error {
		return s.imp.Run(ctx, func(tx *imports.Tx) error {
			tx.SourceAs(opts.Source)
			l := annotatedpairs.NewLoader(apTx{tx}, path, hash, s.apLoadOptions(tx, opts, model.KindPreferenceCSV, nil))
			defer l.Close()
			if err := preferencecsv.Decode(ctx, r, path, opts.MaxValue, l); err != nil {
				return err
			}
			res, err = l.Finish(path)
			return err
		})
	})
	if errors.Is(err, errUnchanged) {
		return model.ImportResult{Kind: model.KindPreferenceCSV, Name: opts.Name, Source: path, Hash: hash, Unchanged: true}, nil
	}
	return res, err
}
