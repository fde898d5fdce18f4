package data

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/auditscope/auditscope/data/internal/digest"
	"github.com/auditscope/auditscope/data/internal/imports"
	"github.com/auditscope/auditscope/data/model"
)

// TextsMerge attaches prompts and responses from a base dataset to an
// annotation-only AnnotatedPairs file as it is imported (the Feedback
// Forensics Annotations v2.0 files carry, per comparison, a metadata key such
// as conversation_id to merge them back by). DuckDB reads the base file:
// CSV, JSON Lines or Parquet, by its extension.
type TextsMerge struct {
	File string // the base dataset
	Key  string // the metadata key of the comparisons, and the base file's column of the same values
	// The base file's columns holding the prompt and the two responses; an
	// empty Prompt leaves the prompts as they are.
	Prompt, A, B string
}

// mergeReport is what a merge found.
type mergeReport struct {
	matched, unmatched, duplicates int
	duplicateKeys                  []string
}

func (r mergeReport) note(m *TextsMerge) string {
	s := fmt.Sprintf("texts merged from %s by %s: %d comparisons matched, %d base rows matched no comparison",
		filepath.Base(m.File), m.Key, r.matched, r.unmatched)
	if r.duplicates > 0 {
		s += fmt.Sprintf(", %d keys appear more than once in the base file and were not merged (e.g. %s)",
			r.duplicates, strings.Join(r.duplicateKeys, ", "))
	}
	return s
}

// hash mixes the merge into an import's content hash: the same file merged
// with other texts is other content.
func (m *TextsMerge) hash(fileHash string) (string, error) {
	base, err := digest.File(m.File)
	if err != nil {
		return "", fmt.Errorf("texts %s: %w", m.File, err)
	}
	sum := sha256.Sum256([]byte(strings.Join([]string{fileHash, base, m.Key, m.Prompt, m.A, m.B}, "\x00")))
	return hex.EncodeToString(sum[:]), nil
}

// reader is the DuckDB table function that reads the base file.
func (m *TextsMerge) reader() (string, error) {
	switch strings.ToLower(filepath.Ext(m.File)) {
	case ".csv", ".tsv":
		return "read_csv(?, header = true, all_varchar = true)", nil
	case ".jsonl", ".ndjson", ".json":
		return "read_json(?, format = 'auto')", nil
	case ".parquet":
		return "read_parquet(?)", nil
	}
	return "", &model.InputError{File: m.File, Offset: -1, Msg: "want a .csv, .jsonl or .parquet base dataset to merge texts from"}
}

// mergeMemoryMiB is DuckDB's memory limit while texts are merged.
const mergeMemoryMiB = 512

// quoteIdent quotes a column name given on the command line.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// mergeTexts fills the import's comparisons' prompts and responses from the
// base file, by the metadata key. Keys that appear more than once in the base
// file are not merged (which row would be the comparison's is unknowable).
// It returns how many comparisons it matched and the import's note.
func (s *Store) mergeTexts(tx *imports.Tx, m *TextsMerge, dataset string) (int, string, error) {
	rep, err := s.merge(tx, m, dataset)
	if err != nil {
		return 0, "", err
	}
	return rep.matched, rep.note(m), nil
}

func (s *Store) merge(tx *imports.Tx, m *TextsMerge, dataset string) (mergeReport, error) {
	var rep mergeReport
	read, err := m.reader()
	if err != nil {
		return rep, err
	}
	// The streaming import runs under a small memory limit; reading and
	// joining a base dataset needs DuckDB's usual room.
	if err := s.mem.Raise(tx.Context(), mergeMemoryMiB); err != nil {
		return rep, err
	}
	prompt := "NULL"
	if m.Prompt != "" {
		prompt = "CAST(" + quoteIdent(m.Prompt) + " AS VARCHAR)"
	}
	// Column names are quoted identifiers; the file is a parameter.
	if err := tx.Exec(`CREATE OR REPLACE TEMP TABLE merge_base AS SELECT CAST(`+quoteIdent(m.Key)+` AS VARCHAR) AS k, `+prompt+` AS p,
CAST(`+quoteIdent(m.A)+` AS VARCHAR) AS a, CAST(`+quoteIdent(m.B)+` AS VARCHAR) AS b FROM `+read, m.File); err != nil {
		return rep, &model.InputError{File: m.File, Offset: -1, Msg: "cannot read the base dataset's columns " + strings.Join([]string{m.Key, m.A, m.B}, ", ") + ": " + err.Error()}
	}
	defer tx.Exec(`DROP TABLE IF EXISTS merge_base`)
	rows, err := tx.Conn().QueryContext(tx.Context(), `SELECT k FROM merge_base WHERE k IS NOT NULL GROUP BY k HAVING count(*) > 1 ORDER BY k`)
	if err != nil {
		return rep, err
	}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			rows.Close()
			return rep, err
		}
		if rep.duplicates++; len(rep.duplicateKeys) < 3 {
			rep.duplicateKeys = append(rep.duplicateKeys, k)
		}
	}
	rows.Close()
	res, err := tx.Conn().ExecContext(tx.Context(), `UPDATE ap_comparisons SET prompt = coalesce(u.p, ap_comparisons.prompt),
  text_a = coalesce(u.a, ''), text_b = coalesce(u.b, ''), len_a = length(coalesce(u.a, '')), len_b = length(coalesce(u.b, ''))
FROM (SELECT m.cmp, b.p, b.a, b.b FROM ap_meta m JOIN merge_base b ON m.value = b.k
      WHERE m.dataset = ? AND m.gen = ? AND m.key = ? AND b.k IN (SELECT k FROM merge_base GROUP BY k HAVING count(*) = 1)) u
WHERE ap_comparisons.dataset = ? AND ap_comparisons.gen = ? AND ap_comparisons.idx = u.cmp`,
		dataset, tx.Gen(), m.Key, dataset, tx.Gen())
	if err != nil {
		return rep, fmt.Errorf("merge texts: %w", err)
	}
	n, _ := res.RowsAffected()
	rep.matched = int(n)
	err = tx.Conn().QueryRowContext(tx.Context(), `SELECT count(*) FROM merge_base WHERE k IS NULL OR k NOT IN
  (SELECT value FROM ap_meta WHERE dataset = ? AND gen = ? AND key = ? AND value IS NOT NULL)`, dataset, tx.Gen(), m.Key).Scan(&rep.unmatched)
	return rep, err
}
