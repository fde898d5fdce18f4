// Package ztext compresses the texts the store keeps whole and reads one at
// a time: audit transcripts. DuckDB leaves a string longer than a few
// kilobytes uncompressed in its overflow blocks (the 100,000-audit demo's
// 620 MB of transcripts took 620 MB of its file), so they are stored as
// S2 blocks (github.com/klauspost/compress/s2, Snappy's successor), one a
// transcript, made on the import's cores. S2 rather than zstd: 2.4× on the
// demo's transcripts at about 500 MB/s a core, where zstd's fastest level
// gave 3.4× at 115 MB/s, which cost the 100,000-audit import 7 s of CPU
// (docs/PERFORMANCE.md, "Import of a million audits").
package ztext

import (
	"errors"
	"fmt"

	"github.com/klauspost/compress/s2"
)

// MaxSize bounds a decompressed text: above the largest value an import
// accepts (--max-value), so a block that claims more is refused instead of
// filling memory.
const MaxSize = 4 << 30

// Compress returns b as one S2 block. Safe for concurrent use.
func Compress(b []byte) []byte {
	return s2.Encode(nil, b)
}

// Decompress returns the text of a block Compress made. Safe for
// concurrent use.
func Decompress(z []byte) ([]byte, error) {
	n, err := s2.DecodedLen(z)
	if err != nil {
		return nil, fmt.Errorf("compressed text: %w", err)
	}
	if n > MaxSize {
		return nil, errors.New("compressed text: claims more than 4 GiB")
	}
	b, err := s2.Decode(make([]byte, n), z)
	if err != nil {
		return nil, fmt.Errorf("compressed text: %w", err)
	}
	return b, nil
}
