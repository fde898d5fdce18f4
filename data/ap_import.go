package data

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/auditscope/auditscope/data/annotatedpairs"
	"github.com/auditscope/auditscope/data/internal/digest"
	"github.com/auditscope/auditscope/data/internal/imports"
	"github.com/auditscope/auditscope/data/internal/regular"
	"github.com/auditscope/auditscope/data/model"
)

// countingReader reports progress as bytes are read.
type countingReader struct {
	r        io.Reader
	n, total int64
	progress func(done, total int64)
	last     int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.progress != nil && (c.n-c.last >= 1<<20 || err == io.EOF) {
		c.last = c.n
		c.progress(c.n, c.total)
	}
	return n, err
}

// ImportAnnotatedPairs streams an AnnotatedPairs JSON file (format 1.x or
// 2.0) into the store in one transaction. Memory stays bounded by the
// largest single comparison plus the set of comparison ids.
//
// The file's hash (which tells an unchanged file) is worked out beside the
// import rather than before it, which took a fourteenth of a large file's
// import time. As soon as it is known, an earlier import of the same content
// stops the import (rolled back, reported unchanged); the import itself
// waits for the hash only where it needs it: when the dataset's name was
// imported before, and at its end.
func (s *Store) ImportAnnotatedPairs(ctx context.Context, path string, opts ImportOptions) (model.ImportResult, error) {
	f, err := regular.Open(path)
	if err != nil {
		return model.ImportResult{}, fmt.Errorf("import %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return model.ImportResult{}, fmt.Errorf("import %s: %w", path, err)
	}
	ictx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	hc := make(chan annotatedpairs.Hash, 1) // buffered: an import that ends first leaves it behind
	go func() {
		// The descriptor the import reads, so both see the same file
		// (closed when the import returns, which ends this early).
		var h annotatedpairs.Hash
		h.Hash, h.Err = digest.Reader(io.NewSectionReader(f, 0, st.Size()))
		if h.Err != nil {
			h.Err = fmt.Errorf("import %s: %w", path, h.Err)
		} else if opts.Texts != nil {
			h.Hash, h.Err = opts.Texts.hash(h.Hash)
		}
		if h.Err == nil {
			r, ok, err := s.alreadyImported(ictx, model.KindAnnotatedPairs, opts.Name, h.Hash)
			switch {
			case err != nil:
				h.Err = err
			case ok:
				h.Earlier = &r
			}
		}
		hc <- h // before the cancel, so that hashing finds it
		if h.Earlier != nil {
			cancel(errUnchanged)
		}
	}()
	hashing := sync.OnceValue(func() annotatedpairs.Hash {
		select {
		case h := <-hc:
			return h
		case <-ictx.Done():
			select {
			case h := <-hc: // the hash ended the import
				return h
			default:
				return annotatedpairs.Hash{Err: context.Cause(ictx)}
			}
		}
	})
	res, err := s.importAP(ictx, &countingReader{r: f, total: st.Size(), progress: opts.Progress}, path, "", hashing, opts)
	if err != nil && errors.Is(context.Cause(ictx), errUnchanged) && ctx.Err() == nil {
		if h := hashing(); h.Earlier != nil {
			return *h.Earlier, nil
		}
	}
	return res, err
}

// ImportAnnotatedPairsBytes imports an AnnotatedPairs document held in
// memory (the built-in demo); name is used for messages.
func (s *Store) ImportAnnotatedPairsBytes(ctx context.Context, b []byte, name string, opts ImportOptions) (model.ImportResult, error) {
	hash := digest.Bytes(b)
	if opts.Texts != nil {
		var err error
		if hash, err = opts.Texts.hash(hash); err != nil {
			return model.ImportResult{}, err
		}
	}
	if r, ok, err := s.alreadyImported(ctx, model.KindAnnotatedPairs, opts.Name, hash); err != nil || ok {
		return r, err
	}
	return s.importAP(ctx, bytes.NewReader(b), name, hash, nil, opts)
}

// importAP imports an AnnotatedPairs document; hashing, when not nil,
// gives its hash, which is then "".
func (s *Store) importAP(ctx context.Context, r io.Reader, file, hash string, hashing func() annotatedpairs.Hash, opts ImportOptions) (res model.ImportResult, err error) {
	var l *annotatedpairs.Loader
	err = s.mem.Import(ctx, streamImportMemoryMiB, func() error {
		return s.imp.Run(ctx, func(tx *imports.Tx) error {
			tx.SourceAs(opts.Source)
			l = annotatedpairs.NewLoader(apTx{tx}, file, hash, s.apLoadOptions(tx, opts, model.KindAnnotatedPairs, hashing))
			defer l.Close()
			if err := annotatedpairs.Decode(ctx, r, file, opts.MaxValue, l); err != nil {
				return err
			}
			res, err = l.Finish(file)
			return err
		})
	})
	if errors.Is(err, errUnchanged) {
		name := opts.Name
		if l != nil {
			var earlier *model.ImportResult
			if earlier, name, hash = l.Unchanged(); earlier != nil {
				return *earlier, nil
			}
		}
		// The earlier import, as ImportAnnotatedPairsBytes reports it.
		if r, ok, err := s.alreadyImported(ctx, model.KindAnnotatedPairs, name, hash); err != nil || ok {
			return r, err
		}
		return model.ImportResult{Kind: model.KindAnnotatedPairs, Name: name, Source: file, Hash: hash, Unchanged: true}, nil
	}
	return res, err
}

// apLoadOptions are the loader's options of an import's.
func (s *Store) apLoadOptions(tx *imports.Tx, opts ImportOptions, format string, hashing func() annotatedpairs.Hash) annotatedpairs.LoadOptions {
	o := annotatedpairs.LoadOptions{Name: opts.Name, Replace: opts.Replace, Synthetic: opts.Synthetic, Format: format, Hashing: hashing, MaxValue: opts.MaxValue}
	if m := opts.Texts; m != nil {
		o.Merge = func(dataset string) (int, string, error) { return s.mergeTexts(tx, m, dataset) }
	}
	return o
}

// apTx is an import's transaction as the AnnotatedPairs loader writes it
// (annotatedpairs.Tx).
type apTx struct{ *imports.Tx }

// RenameDataset moves the rows appended under a pending id (the dataset's
// name was not known yet) to the dataset's name.
func (tx apTx) RenameDataset(from, to string) error {
	for _, table := range []string{"ap_comparisons", "ap_meta"} {
		if err := tx.Exec(`UPDATE `+table+` SET dataset = ? WHERE dataset = ? AND gen = ?`, to, from, tx.Gen()); err != nil {
			return err
		}
	}
	return nil
}

// AddDataset writes the dataset's own row, last: a dataset row means its
// comparisons and annotators are all in.
func (tx apTx) AddDataset(d annotatedpairs.Dataset) error {
	var def any // NULL when the file names no default annotator
	if d.DefaultAnnotator != "" {
		def = d.DefaultAnnotator
	}
	return tx.Exec(`INSERT INTO ap_datasets (id, import_id, name, description, version, format, default_annotator, created_at, synthetic, n_comparisons, n_votes, dropped_duplicates, metadata_keys, texts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		d.ID, d.ImportID, d.Name, d.Description, d.Version, d.Format, def, d.CreatedAt, d.Synthetic, d.Comparisons, d.Votes, d.Dropped, d.MetadataKeys, d.Texts)
}
