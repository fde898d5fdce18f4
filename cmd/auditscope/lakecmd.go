package main

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/bucket"
	"github.com/auditscope/auditscope/data/lake"
)

// openLake opens the lake at dir, a folder or s3://bucket/prefix.
func openLake(ctx context.Context, dir, memLimit string, opts lake.BucketOptions) (*lake.Store, error) {
	if !bucket.IsURL(dir) {
		return lake.Open(ctx, dir, memLimit)
	}
	b, err := bucket.Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	if opts.Cache == "" {
		// One folder per lake, so a restarted server starts warm.
		base, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("--lake-cache: no user cache folder (%v); give one", err)
		}
		sum := sha256.Sum256([]byte(b.String()))
		opts.Cache = filepath.Join(base, "auditscope", "lake-"+hex.EncodeToString(sum[:6]))
	}
	if opts.Every <= 0 || opts.CacheSize <= 0 {
		return nil, usageError{"--lake-poll wants a positive duration, --lake-cache-size a positive size"}
	}
	return lake.OpenBucket(ctx, b, memLimit, opts)
}

// lakeWriteMemory is DuckDB's memory limit for a lake write from a
// database file.
const lakeWriteMemory = "512MB"

func lakeCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && isHelp(args[0]) {
		fmt.Fprintln(stdout, "Usage: "+commandUsage["lake"]+"\n\nRun 'auditscope lake write --help' for its flags.")
		return errHelpShown
	}
	if len(args) == 0 || args[0] != "write" {
		return usageError{"lake: the one subcommand is write"}
	}
	fs := newFlags("lake write", "Usage: auditscope lake write --lake DIR [--force] (--db FILE | PATH...)\n\nWrites every dataset and experiment as hive-partitioned Parquet files under\nDIR with a manifest naming each one's current generation (docs/FORMAT.md,\n\"The Parquet lake\"). A dataset or experiment whose content the lake has\nalready is not written again; the manifest is replaced atomically. A write\nthat would put an older import of a dataset or experiment in place of the\nlake's newer one is refused before anything is written, unless --force.\n\nDIR may be s3://bucket/prefix (docs/OBJECT-STORAGE.md): endpoint, region and\ncredentials come from the standard AWS environment and config files. Many\nwriters may write one lake in a bucket at once: the manifest is replaced\nonly over the one a write read, and a write that meets another's reads\nthe new manifest and tries again.\n", stdout, stderr)
	dir := fs.String("lake", "", "the lake `folder` (created if missing) or s3://bucket/prefix (required)")
	dbPath := fs.String("db", "", "DuckDB database `file` to write from (opened read-only)")
	force := fs.Bool("force", false, "write even where the lake holds a newer import of a dataset or experiment (a roll-back)")
	maxValue := maxValueFlag(fs)
	memLimit := fs.String("memory-limit", "", "cap DuckDB's memory, e.g. `1GB` (default with --db: "+lakeWriteMemory+", which bounds the write at about a gigabyte; with PATHs: as an import's)")
	if err := parse(fs, args[1:], stdout); err != nil {
		return err
	}
	paths, err := interleave(fs, args[1:])
	if err != nil {
		return err
	}
	if *dir == "" {
		return usageError{"lake write needs --lake DIR"}
	}
	if err := cmp.Or(bucketURLs("--lake", []string{*dir}), notURL("--db", *dbPath), bucketURLs("PATH", paths)); err != nil {
		return err
	}
	if (*dbPath == "") == (len(paths) == 0) {
		return usageError{"lake write reads either --db FILE or PATHs to import, one of the two"}
	}
	// Reading a database file to write it out, DuckDB's buffer pool would
	// keep what it read up to its limit (80% of the machine by default):
	// the 100,000-audit demo's write peaked at 2.6 GB.
	limit := *memLimit
	if limit == "" && *dbPath != "" {
		limit = lakeWriteMemory
	}
	store, err := data.Open(ctx, data.Options{Path: *dbPath, ReadOnly: *dbPath != "", WriteOut: *dbPath != "", MemoryLimit: limit})
	if err != nil {
		return err
	}
	defer store.Close()
	if len(paths) > 0 {
		if err := importPaths(ctx, store, paths, data.ImportOptions{MaxValue: int64(*maxValue)}, io.Discard, stderr); err != nil {
			return err
		}
	}
	opts := lake.WriteOptions{Force: *force, Log: func(msg string) { fmt.Fprintln(stderr, "auditscope: "+msg) }}
	var res lake.Result
	defer working(stderr, "writing the lake "+*dir)()
	if bucket.IsURL(*dir) {
		// b's err must not shadow the outer one: the write's error is
		// checked below, and a shadowed one made every failed bucket
		// write exit 0 ("0 written, 0 unchanged").
		b, openErr := bucket.Open(ctx, *dir)
		if openErr != nil {
			return openErr
		}
		res, err = lake.WriteBucket(ctx, store, b, opts)
	} else {
		res, err = lake.Write(ctx, store, *dir, opts)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "lake %s: %d written, %d unchanged\n", *dir, len(res.Written), len(res.Unchanged))
	for _, w := range res.Written {
		fmt.Fprintf(stdout, "  wrote %s\n", w)
	}
	return nil
}

// parseProxies reads --trusted-proxies: CIDRs, or addresses (one each).
func parseProxies(list string) ([]*net.IPNet, error) {
	var out []*net.IPNet
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !strings.Contains(f, "/") {
			ip := net.ParseIP(f)
			if ip == nil {
				return nil, usageError{fmt.Sprintf("--trusted-proxies: %q is not an address or a CIDR (e.g. 10.0.0.5 or 10.0.0.0/24)", f)}
			}
			bits := 8 * len(ip.To16())
			if ip.To4() != nil {
				ip, bits = ip.To4(), 32
			}
			out = append(out, &net.IPNet{IP: ip, Mask: net.CIDRMask(bits, bits)})
			continue
		}
		_, n, err := net.ParseCIDR(f)
		if err != nil {
			return nil, usageError{fmt.Sprintf("--trusted-proxies: %q is not an address or a CIDR (e.g. 10.0.0.5 or 10.0.0.0/24)", f)}
		}
		out = append(out, n)
	}
	return out, nil
}
