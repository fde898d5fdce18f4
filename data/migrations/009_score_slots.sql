-- Judge scores in columns of their own (issue #34): score_0 … score_47 hold
-- an audit's scores in the experiment's first 48 dimensions, which
-- experiment_dimensions.slot maps to the columns. A score filter or sort then
-- reads one column of the audits (27 ms at a million audits) instead of
-- joining a dimension's rows of audit_scores (0.9 s). A dimension past the
-- 48th of its experiment, and every dimension of an experiment imported
-- before this migration, has no slot (NULL) and is read from audit_scores
-- as before. The slots are the store's own: a lake does not carry them.
-- Both tables are made again so that gen stays their last column (the
-- import's appenders add it there).
CREATE TABLE audits_slots (
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
    search_text      VARCHAR NOT NULL, -- lower-cased summary and message text for search
    score_0 DOUBLE,
    score_1 DOUBLE,
    score_2 DOUBLE,
    score_3 DOUBLE,
    score_4 DOUBLE,
    score_5 DOUBLE,
    score_6 DOUBLE,
    score_7 DOUBLE,
    score_8 DOUBLE,
    score_9 DOUBLE,
    score_10 DOUBLE,
    score_11 DOUBLE,
    score_12 DOUBLE,
    score_13 DOUBLE,
    score_14 DOUBLE,
    score_15 DOUBLE,
    score_16 DOUBLE,
    score_17 DOUBLE,
    score_18 DOUBLE,
    score_19 DOUBLE,
    score_20 DOUBLE,
    score_21 DOUBLE,
    score_22 DOUBLE,
    score_23 DOUBLE,
    score_24 DOUBLE,
    score_25 DOUBLE,
    score_26 DOUBLE,
    score_27 DOUBLE,
    score_28 DOUBLE,
    score_29 DOUBLE,
    score_30 DOUBLE,
    score_31 DOUBLE,
    score_32 DOUBLE,
    score_33 DOUBLE,
    score_34 DOUBLE,
    score_35 DOUBLE,
    score_36 DOUBLE,
    score_37 DOUBLE,
    score_38 DOUBLE,
    score_39 DOUBLE,
    score_40 DOUBLE,
    score_41 DOUBLE,
    score_42 DOUBLE,
    score_43 DOUBLE,
    score_44 DOUBLE,
    score_45 DOUBLE,
    score_46 DOUBLE,
    score_47 DOUBLE,
    gen              INTEGER
);
INSERT INTO audits_slots (key, experiment, id, ord, auditor, eval, behavior, split, seed, target, turns, detected, false_positive, quality, production_value, summary, scores, labels, strategy, n_messages, transcript_bytes, transcript_file, search_text, gen) SELECT key, experiment, id, ord, auditor, eval, behavior, split, seed, target, turns, detected, false_positive, quality, production_value, summary, scores, labels, strategy, n_messages, transcript_bytes, transcript_file, search_text, gen FROM audits;
DROP TABLE audits;
ALTER TABLE audits_slots RENAME TO audits;

CREATE TABLE experiment_dimensions_slots (
    experiment VARCHAR NOT NULL,
    dimension  VARCHAR NOT NULL,
    audits     INTEGER NOT NULL,
    slot       SMALLINT,           -- audits.score_<slot>; NULL: read audit_scores
    gen        INTEGER
);
INSERT INTO experiment_dimensions_slots SELECT experiment, dimension, audits, NULL, gen FROM experiment_dimensions;
DROP TABLE experiment_dimensions;
ALTER TABLE experiment_dimensions_slots RENAME TO experiment_dimensions;
