-- Several judges on the same audits (issue #51). An audit's own scores
-- (audit_scores, audits.summary) are the verdict of the judge it was
-- imported with, the experiment's evaluation judge. Every other judge's
-- verdicts (a model that re-judged the transcripts, a person's labels) are
-- here: a row per audit a judge judged, and its scores. They land as an
-- append to the experiment's import (imports.base), so they go with it.
CREATE TABLE verdicts (
    experiment VARCHAR NOT NULL,
    audit      VARCHAR NOT NULL,       -- audits.id
    judge      VARCHAR NOT NULL,       -- the judge's name, as given
    kind       VARCHAR NOT NULL,       -- model, human
    summary    VARCHAR NOT NULL,
    source     VARCHAR NOT NULL,       -- the file, and line or path within it
    gen        INTEGER
);

CREATE TABLE verdict_scores (
    experiment VARCHAR NOT NULL,
    audit      VARCHAR NOT NULL,
    judge      VARCHAR NOT NULL,
    dimension  VARCHAR NOT NULL,
    score      DOUBLE  NOT NULL,
    gen        INTEGER
);
