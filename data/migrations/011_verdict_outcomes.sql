-- Other judges' readings of what an audit's evaluation needs (issue #51):
-- its quality, detection, false positive and production value, as the
-- audits' own columns hold the evaluation judge's. With them an
-- experiment's statistics and comparisons are computed again under
-- another judge. A row per verdict that gives any; NULL where it gives
-- none of that field.
CREATE TABLE verdict_outcomes (
    experiment       VARCHAR NOT NULL,
    audit            VARCHAR NOT NULL,
    judge            VARCHAR NOT NULL,
    detected         BOOLEAN,
    false_positive   BOOLEAN,
    quality          DOUBLE,
    production_value DOUBLE,
    gen              INTEGER
);
