// Package digest is the content hash every importer records: the hex
// SHA-256 of a file, of bytes, or of a folder's files, which tells an
// unchanged input from a changed one (an import of the same content is a
// no-op).
package digest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/auditscope/auditscope/data/internal/regular"
)

// File is the hash of a file's content.
func File(path string) (string, error) {
	f, err := regular.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return Reader(f)
}

// Reader is the hash of what r reads.
func Reader(r io.Reader) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Bytes is the hash of b.
func Bytes(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// Tree hashes a file, or a folder's files in name order (Files).
func Tree(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		return File(path)
	}
	var rels []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(path, p)
			rels = append(rels, rel)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return Files(path, rels)
}

// Files hashes the named files under root (relative paths) as Tree hashes
// a folder: in name order, each name then its content.
func Files(root string, rels []string) (string, error) {
	sorted := slices.Clone(rels)
	slices.Sort(sorted)
	h := sha256.New()
	for _, rel := range sorted {
		fmt.Fprintf(h, "%s\x00", filepath.ToSlash(rel))
		f, err := regular.Open(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return "", err
		}
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
