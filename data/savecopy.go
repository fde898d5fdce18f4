package data

import (
	"context"
	"errors"
	"fmt"
	"os"
)

// SaveCopy writes the whole of an in-memory store to a new database file
// at path, for opening read-only later (the demo, built once and kept
// between starts). It writes beside path and renames into place, so a
// copy cut short (a kill, a full disk) is never found at path.
func (s *Store) SaveCopy(ctx context.Context, path string) (err error) {
	if s.path != "" {
		return errors.New("data: SaveCopy copies an in-memory store")
	}
	// The process's own name: two first starts at once do not share it.
	tmp := fmt.Sprintf("%s.%d.part", path, os.Getpid())
	for _, p := range []string{tmp, tmp + ".wal"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("data: save copy: %w", err)
		}
	}
	defer func() {
		if err != nil {
			os.Remove(tmp)
			os.Remove(tmp + ".wal")
		}
	}()
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("data: save copy: %w", err)
	}
	defer conn.Close()
	var from string
	if err := conn.QueryRowContext(ctx, "SELECT current_database()").Scan(&from); err != nil {
		return fmt.Errorf("data: save copy: %w", err)
	}
	// ATTACH, COPY and DETACH take no parameters: the path is quoted, the
	// database name is DuckDB's own.
	attach := fmt.Sprintf("ATTACH %s AS save_copy (ROW_GROUP_SIZE %d, STORAGE_VERSION %s)", sqlString(tmp), rowGroupSize, sqlString(storageVersion))
	if _, err := conn.ExecContext(ctx, attach); err != nil {
		return fmt.Errorf("data: save copy: %w", err)
	}
	_, err = conn.ExecContext(ctx, "COPY FROM DATABASE "+quoteIdent(from)+" TO save_copy")
	// Detached whatever happened: DETACH checkpoints the file.
	if _, derr := conn.ExecContext(context.Background(), "DETACH save_copy"); err == nil {
		err = derr
	}
	if err != nil {
		return fmt.Errorf("data: save copy: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("data: save copy: %w", err)
	}
	return nil
}
