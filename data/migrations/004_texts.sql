-- Whether an AnnotatedPairs dataset carries its prompts' responses: the
-- Feedback Forensics Annotations v2.0 files carry only the votes and the
-- metadata to merge the texts back (issue: annotation-only files). Without
-- texts, lengths mean nothing and the pages say so.
ALTER TABLE ap_datasets ADD COLUMN texts BOOLEAN DEFAULT true;
