-- Import generations: every row carries the id of the import that wrote it
-- (imports.id). An import writes its rows in one transaction and commits its
-- imports row after them in a transaction of its own, so the imports row is
-- the generation's completion marker; rows whose generation has no imports
-- row are removed when the database is opened (see data/generations.go).
-- --replace writes a second generation under the same name and deletes the
-- old one once the new one is marked, so the dataset and experiment ids are
-- no longer primary keys.

ALTER TABLE ap_annotators ADD COLUMN gen INTEGER;
ALTER TABLE ap_comparisons ADD COLUMN gen INTEGER;
ALTER TABLE ap_meta ADD COLUMN gen INTEGER;
UPDATE ap_annotators SET gen = d.import_id FROM ap_datasets d WHERE d.id = ap_annotators.dataset;
UPDATE ap_comparisons SET gen = d.import_id FROM ap_datasets d WHERE d.id = ap_comparisons.dataset;
UPDATE ap_meta SET gen = d.import_id FROM ap_datasets d WHERE d.id = ap_meta.dataset;

ALTER TABLE behaviors ADD COLUMN gen INTEGER;
ALTER TABLE runs ADD COLUMN gen INTEGER;
ALTER TABLE auditors ADD COLUMN gen INTEGER;
ALTER TABLE audits ADD COLUMN gen INTEGER;
ALTER TABLE audit_scores ADD COLUMN gen INTEGER;
ALTER TABLE audit_transcripts ADD COLUMN gen INTEGER;
ALTER TABLE judgments ADD COLUMN gen INTEGER;
ALTER TABLE crux ADD COLUMN gen INTEGER;
ALTER TABLE metrics ADD COLUMN gen INTEGER;
ALTER TABLE experiment_dimensions ADD COLUMN gen INTEGER;
UPDATE behaviors SET gen = e.import_id FROM experiments e WHERE e.id = behaviors.experiment;
UPDATE runs SET gen = e.import_id FROM experiments e WHERE e.id = runs.experiment;
UPDATE auditors SET gen = e.import_id FROM experiments e WHERE e.id = auditors.experiment;
UPDATE audits SET gen = e.import_id FROM experiments e WHERE e.id = audits.experiment;
UPDATE audit_scores SET gen = e.import_id FROM experiments e WHERE e.id = audit_scores.experiment;
UPDATE audit_transcripts SET gen = e.import_id FROM experiments e WHERE e.id = audit_transcripts.experiment;
UPDATE judgments SET gen = e.import_id FROM experiments e WHERE e.id = judgments.experiment;
UPDATE crux SET gen = e.import_id FROM experiments e WHERE e.id = crux.experiment;
UPDATE metrics SET gen = e.import_id FROM experiments e WHERE e.id = metrics.experiment;
UPDATE experiment_dimensions SET gen = e.import_id FROM experiments e WHERE e.id = experiment_dimensions.experiment;

CREATE TABLE ap_datasets_new (
    id                 VARCHAR NOT NULL,
    import_id          INTEGER NOT NULL,  -- the generation (imports.id)
    name               VARCHAR NOT NULL,
    description        VARCHAR NOT NULL,
    version            VARCHAR NOT NULL,
    format             VARCHAR NOT NULL,
    default_annotator  VARCHAR,
    created_at         VARCHAR NOT NULL,
    synthetic          BOOLEAN NOT NULL,
    n_comparisons      INTEGER NOT NULL,
    n_votes            BIGINT  NOT NULL,
    dropped_duplicates INTEGER NOT NULL,
    metadata_keys      VARCHAR NOT NULL
);
INSERT INTO ap_datasets_new SELECT * FROM ap_datasets;
DROP TABLE ap_datasets;
ALTER TABLE ap_datasets_new RENAME TO ap_datasets;

CREATE TABLE experiments_new (
    id          VARCHAR NOT NULL,
    import_id   INTEGER NOT NULL,         -- the generation (imports.id)
    name        VARCHAR NOT NULL,
    description VARCHAR NOT NULL,
    synthetic   BOOLEAN NOT NULL,
    format      VARCHAR NOT NULL
);
INSERT INTO experiments_new SELECT * FROM experiments;
DROP TABLE experiments;
ALTER TABLE experiments_new RENAME TO experiments;
