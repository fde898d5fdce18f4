-- The judge dimensions each experiment uses, with how many audits carry
-- each: the audit browser lists them on every request, and counting them
-- from audit_scores each time would scan millions of rows.
CREATE TABLE experiment_dimensions (
    experiment VARCHAR NOT NULL,
    dimension  VARCHAR NOT NULL,
    audits     INTEGER NOT NULL
);
