-- Imports: one row per import that landed.
CREATE SEQUENCE import_ids START 1;
CREATE TABLE imports (
    id          INTEGER PRIMARY KEY,
    kind        VARCHAR NOT NULL,   -- annotated_pairs, preference_csv, bundle, petri, inspect
    name        VARCHAR NOT NULL,   -- the dataset or experiment id it created
    source      VARCHAR NOT NULL,   -- the path given on the command line
    hash        VARCHAR NOT NULL,   -- sha256 of the input content
    rows        BIGINT  NOT NULL,   -- rows written over all tables
    detail      VARCHAR NOT NULL,   -- JSON: per-table counts and notes (dropped duplicates...)
    imported_at TIMESTAMP NOT NULL
);

-- AnnotatedPairs datasets (Feedback Forensics). Big tables have no primary
-- key: DuckDB's zone maps serve the filters we use, and an index would slow
-- the bulk loads.
CREATE TABLE ap_datasets (
    id                 VARCHAR PRIMARY KEY,
    import_id          INTEGER NOT NULL,
    name               VARCHAR NOT NULL,
    description        VARCHAR NOT NULL,
    version            VARCHAR NOT NULL,
    format             VARCHAR NOT NULL,  -- annotated_pairs or preference_csv
    default_annotator  VARCHAR,
    created_at         VARCHAR NOT NULL,
    synthetic          BOOLEAN NOT NULL,
    n_comparisons      INTEGER NOT NULL,
    n_votes            BIGINT  NOT NULL,
    dropped_duplicates INTEGER NOT NULL,
    metadata_keys      VARCHAR NOT NULL   -- JSON list, in file order
);

CREATE TABLE ap_annotators (
    dataset     VARCHAR NOT NULL,
    idx         INTEGER NOT NULL,   -- ap_votes.annotator
    ord         INTEGER NOT NULL,   -- display order: declared ones first, in file order
    id          VARCHAR NOT NULL,
    name        VARCHAR NOT NULL,
    description VARCHAR NOT NULL,
    type        VARCHAR NOT NULL,   -- human, principle, model, unknown, ...
    declared    BOOLEAN NOT NULL    -- false: referenced by a vote but not declared
);

CREATE TABLE ap_comparisons (
    dataset  VARCHAR NOT NULL,
    idx      INTEGER NOT NULL,      -- position in the file after dropping duplicates
    id       VARCHAR NOT NULL,
    prompt   VARCHAR,
    text_a   VARCHAR NOT NULL,
    text_b   VARCHAR NOT NULL,
    model_a  VARCHAR,
    model_b  VARCHAR,
    len_a    INTEGER NOT NULL,      -- Unicode characters
    len_b    INTEGER NOT NULL,
    attrs_a  VARCHAR,               -- JSON object of response keys beyond text and model
    attrs_b  VARCHAR,
    metadata VARCHAR,               -- JSON object, as in the file
    votes    VARCHAR NOT NULL,      -- JSON [[annotator idx, pref, reason], ...] (see ap_votes)
    prefs    VARCHAR NOT NULL       -- one character per annotator idx: '-' none, a, b, t (tie), i (anything else)
);

-- Votes one row each, derived from ap_comparisons.votes. A view rather than a
-- table: millions of vote rows cost seconds and a gigabyte to insert, while
-- the explorer reads the compact prefs column and one comparison's votes at
-- a time.
CREATE VIEW ap_votes AS
SELECT c.dataset, c.idx AS cmp,
       CAST(x->>'$[0]' AS INTEGER) AS annotator,   -- ap_annotators.idx
       x->>'$[1]' AS pref,                          -- text_a, text_b, tie, invalid, ... or NULL
       x->>'$[2]' AS reason                         -- no_pref_reason, when pref is NULL
FROM ap_comparisons c, unnest(CAST(c.votes AS JSON[])) AS u(x);

CREATE TABLE ap_meta (
    dataset VARCHAR NOT NULL,
    cmp     INTEGER NOT NULL,
    key     VARCHAR NOT NULL,
    value   VARCHAR                 -- strings as is; other JSON values as JSON text
);

-- Alignment-audit experiments. Ids of runs, auditors, audits and judgments are
-- unique within an experiment; their global key (used in URLs) is
-- "experiment:id".
CREATE TABLE experiments (
    id          VARCHAR PRIMARY KEY,
    import_id   INTEGER NOT NULL,
    name        VARCHAR NOT NULL,
    description VARCHAR NOT NULL,
    synthetic   BOOLEAN NOT NULL,
    format      VARCHAR NOT NULL    -- bundle, petri, inspect
);

CREATE TABLE behaviors (
    experiment  VARCHAR NOT NULL,
    id          VARCHAR NOT NULL,
    category    VARCHAR NOT NULL,
    split       VARCHAR NOT NULL,
    description VARCHAR NOT NULL
);

CREATE TABLE runs (
    key                  VARCHAR NOT NULL,
    experiment           VARCHAR NOT NULL,
    id                   VARCHAR NOT NULL,
    name                 VARCHAR NOT NULL,
    reward               VARCHAR NOT NULL,
    calibration_fraction DOUBLE  NOT NULL,
    multi_target         BOOLEAN NOT NULL,
    refresh_steps        INTEGER,
    base_model           VARCHAR NOT NULL,
    ord                  INTEGER NOT NULL
);

CREATE TABLE auditors (
    key        VARCHAR NOT NULL,
    experiment VARCHAR NOT NULL,
    id         VARCHAR NOT NULL,
    name       VARCHAR NOT NULL,
    kind       VARCHAR NOT NULL,
    run        VARCHAR,              -- runs.id
    epoch      INTEGER,
    step       INTEGER,
    ord        INTEGER NOT NULL
);

CREATE TABLE audits (
    key              VARCHAR NOT NULL,
    experiment       VARCHAR NOT NULL,
    id               VARCHAR NOT NULL,
    ord              INTEGER NOT NULL,
    auditor          VARCHAR NOT NULL, -- auditors.id
    eval             VARCHAR NOT NULL,
    behavior         VARCHAR,
    split            VARCHAR NOT NULL, -- train, heldout, benign
    seed             VARCHAR NOT NULL,
    target           VARCHAR NOT NULL,
    turns            INTEGER NOT NULL,
    detected         BOOLEAN,
    false_positive   BOOLEAN,
    quality          DOUBLE,
    production_value DOUBLE,
    summary          VARCHAR NOT NULL,
    scores           VARCHAR,          -- JSON object dimension -> score (audit_scores is derived from it)
    labels           VARCHAR,          -- JSON object
    strategy         VARCHAR,          -- labels.strategy, for grouping
    n_messages       INTEGER NOT NULL,
    transcript_bytes BIGINT  NOT NULL,
    transcript_file  VARCHAR,          -- absolute path when the transcript is read on demand
    search_text      VARCHAR NOT NULL  -- lower-cased summary and message text for search
);

CREATE TABLE audit_scores (
    experiment VARCHAR NOT NULL,
    audit      VARCHAR NOT NULL,       -- audits.id
    dimension  VARCHAR NOT NULL,
    score      DOUBLE  NOT NULL
);

CREATE TABLE audit_transcripts (
    experiment VARCHAR NOT NULL,
    audit      VARCHAR NOT NULL,       -- audits.id
    json       VARCHAR NOT NULL
);

CREATE TABLE judgments (
    key         VARCHAR NOT NULL,
    experiment  VARCHAR NOT NULL,
    id          VARCHAR NOT NULL,
    ord         INTEGER NOT NULL,
    kind        VARCHAR NOT NULL,
    left_side   VARCHAR NOT NULL,      -- an audit id or an "ext:" label
    right_side  VARCHAR NOT NULL,
    behavior    VARCHAR,
    split       VARCHAR NOT NULL,
    outcome     VARCHAR NOT NULL,
    judge       VARCHAR NOT NULL,
    reasoning   VARCHAR NOT NULL
);

CREATE TABLE crux (
    experiment     VARCHAR NOT NULL,
    auditor        VARCHAR NOT NULL,
    n              INTEGER NOT NULL,
    target_focused DOUBLE NOT NULL,
    auditor_view   DOUBLE NOT NULL,
    pairwise_win   DOUBLE NOT NULL,
    pairwise_loss  DOUBLE NOT NULL,
    d_signal       DOUBLE NOT NULL,
    d_craft        DOUBLE NOT NULL,
    d_realism      DOUBLE NOT NULL,
    d_evidence     DOUBLE NOT NULL
);

CREATE TABLE metrics (
    experiment VARCHAR NOT NULL,
    run        VARCHAR NOT NULL,
    step       INTEGER NOT NULL,
    name       VARCHAR NOT NULL,
    value      DOUBLE  NOT NULL
);
