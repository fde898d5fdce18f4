-- ap_comparisons.votes now holds only the votes its prefs column does not
-- tell whole: a null or empty preference, one outside text_a, text_b and tie,
-- or one given with a reason. A text_a, text_b or tie vote without a reason
-- is its code in prefs alone. Writing every vote as JSON as well cost an
-- AnnotatedPairs import about a fifth of its time (issue #19). Rows imported
-- before keep every vote in votes: a prefs code whose annotator the JSON
-- lists already is not counted twice.
DROP VIEW ap_votes;
CREATE VIEW ap_votes AS
SELECT c.dataset, c.idx AS cmp,
       CAST(x->>'$[0]' AS INTEGER) AS annotator,   -- ap_annotators.idx
       x->>'$[1]' AS pref,                          -- text_a, text_b, tie, invalid, ... or NULL
       x->>'$[2]' AS reason                         -- no_pref_reason
FROM ap_comparisons c, unnest(CAST(c.votes AS JSON[])) AS u(x)
UNION ALL
SELECT c.dataset, c.idx AS cmp,
       CAST(k - 1 AS INTEGER) AS annotator,
       CASE substr(c.prefs, k, 1) WHEN 'a' THEN 'text_a' WHEN 'b' THEN 'text_b' ELSE 'tie' END AS pref,
       NULL::VARCHAR AS reason
FROM ap_comparisons c, unnest(range(1, length(c.prefs) + 1)) AS r(k)
WHERE substr(c.prefs, k, 1) IN ('a', 'b', 't')
  AND NOT list_contains(CAST(json_extract(c.votes, '$[*][0]') AS INTEGER[]), k - 1);
