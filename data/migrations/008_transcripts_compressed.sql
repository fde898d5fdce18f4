-- Transcripts are stored as S2 blocks (zjson; issue #34): DuckDB keeps a
-- string longer than a few kilobytes uncompressed, so the 100,000-audit demo's
-- 620 MB of transcripts took 620 MB of the file, and a million audits would
-- take 6 GB. Rows imported before keep their text in json; a row has one of
-- the two. The table is made again so that gen stays its last column (the
-- import's appenders add it there).
-- zjson is stored as it is (USING COMPRESSION uncompressed): DuckDB's own
-- string compression of the S2 blocks (DICT_FSST) saved a fifth of their
-- space but ran on the import's appending thread, its slowest stage, for a
-- fifth of the 100,000-audit import's time (docs/PERFORMANCE.md, "Stop 47").
-- Files that ran this migration before keep DuckDB's choice.
CREATE TABLE audit_transcripts_z (
    experiment VARCHAR NOT NULL,
    audit      VARCHAR NOT NULL,       -- audits.id
    json       VARCHAR,                -- the transcript's JSON (rows imported before 008)
    zjson      BLOB USING COMPRESSION uncompressed, -- the same, one S2 block (data/internal/ztext)
    gen        INTEGER
);
INSERT INTO audit_transcripts_z SELECT experiment, audit, json, NULL, gen FROM audit_transcripts;
DROP TABLE audit_transcripts;
ALTER TABLE audit_transcripts_z RENAME TO audit_transcripts;
