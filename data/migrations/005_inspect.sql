-- Inspect logs in Inspect's terms (issue: real Inspect logs). An import of
-- Inspect logs records each log's header (task, model, status, the samples
-- it reports and its scorers' metrics) and each sample's scores as the
-- scorers gave them, beside the audits the samples become.
CREATE TABLE inspect_logs (
    experiment    VARCHAR NOT NULL,
    ord           INTEGER NOT NULL,
    log           VARCHAR NOT NULL,   -- the file, relative to the imported folder
    task          VARCHAR NOT NULL,
    model         VARCHAR NOT NULL,
    status        VARCHAR NOT NULL,   -- success, started (still running), error, cancelled
    created       VARCHAR NOT NULL,
    samples       INTEGER NOT NULL,   -- samples × epochs in the file
    total_samples INTEGER,            -- as the log reports; NULL without results
    results       VARCHAR,            -- JSON [{name, scorer, metrics: [{name, value}]}]; NULL without results
    gen           INTEGER             -- the import's generation (last: the appenders add it)
);

CREATE TABLE sample_scores (
    experiment  VARCHAR NOT NULL,
    audit       VARCHAR NOT NULL,     -- audits.id
    log         VARCHAR NOT NULL,     -- inspect_logs.log
    scorer      VARCHAR NOT NULL,     -- the key in the sample's scores
    key         VARCHAR NOT NULL,     -- a dictionary value's key; '' for a scalar value
    value       VARCHAR NOT NULL,     -- the value as the log gives it (strings bare, others as JSON)
    num         DOUBLE  NOT NULL,     -- value_to_float(value), 0 when unconverted (as Inspect)
    converted   BOOLEAN NOT NULL,
    judge       BOOLEAN NOT NULL,     -- filed as a judge dimension (shown with the judge's scores)
    answer      VARCHAR NOT NULL,
    explanation VARCHAR NOT NULL,
    gen         INTEGER
);
