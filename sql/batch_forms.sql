--
-- The forms of each batch function take the same arguments, read from the
-- catalog so that a new function or a new argument cannot drift.  After its
-- query, the query form takes the function's parameter (radius, threshold)
-- and its options; the relation form (rel regclass, id_column, the value's
-- column) and its twin that takes the relation's name as a text take the
-- same ones, with the same names, defaults and types (the twin's parameter
-- may be of another type: it is there for calls whose arguments are all
-- untyped), in the same order, and besides them only order_column (right
-- after the parameter) and verify_column (right before verify), which name
-- what the query form reads from its query's columns.  The join of two
-- queries takes the same ones as the query form of the pairs.  One
-- difference is by design: a relation form's parameter may default to NULL,
-- the decision stored with the table (nddup_decide), which a query has not.
--
CREATE TEMP VIEW batch_form_args AS
SELECT p.oid, p.proname::text AS fname, a.n, p.proargnames[a.n] AS argname,
       format_type(p.proargtypes[a.n - 1], NULL) AS argtype,
       pg_get_function_arg_default(p.oid, a.n) AS dflt,
       CASE WHEN p.proargnames[1] = 'query' THEN 'query'
            WHEN p.proargnames[1] = 'query_a' THEN 'join'
            WHEN p.proargnames[1] = 'new_query' THEN 'assign'
            WHEN p.proargnames[1] = 'rel' AND p.proargtypes[0] = 'regclass'::regtype THEN 'relation'
            WHEN p.proargnames[1] = 'rel' AND p.proargtypes[0] = 'text'::regtype THEN 'relation by name'
       END AS form
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'nddup'
CROSS JOIN LATERAL generate_series(1, p.pronargs) AS a(n)
WHERE p.proretset AND p.proargnames[1] IN ('query', 'query_a', 'new_query', 'rel')
  AND p.proname !~ '^nddup_';	-- the calibration functions: one form each

-- each form's arguments from its parameter on, without order_column and
-- verify_column: 'name type [= default]', and the same without the types;
-- a relation form's NULL default of its parameter (the stored decision) is
-- left out
CREATE TEMP VIEW batch_forms AS
SELECT oid, fname, form,
       array_agg(argname || ' ' || argtype || coalesce(' = ' || dflt, '') ORDER BY n) AS args,
       -- the same with the parameter's name and default only (for the twin)
       array_agg(CASE WHEN n = first THEN argname ELSE argname || ' ' || argtype END
                 || coalesce(' = ' || dflt, '') ORDER BY n) AS typed_but_param
FROM (SELECT oid, fname, n, argname, argtype, form, first,
             CASE WHEN form LIKE 'relation%' AND n = first AND dflt LIKE 'NULL::%' THEN NULL
                  ELSE dflt END AS dflt
      FROM (SELECT *, CASE form WHEN 'query' THEN 2 WHEN 'join' THEN 3 WHEN 'assign' THEN 3 ELSE 4 END AS first
            FROM batch_form_args) f) a
WHERE n >= first
  AND argname NOT IN ('order_column', 'verify_column')
GROUP BY oid, fname, form;

-- the relation forms' own arguments: the three first, order_column right
-- after the parameter, verify_column right before verify, no other
CREATE TEMP VIEW batch_form_placement AS
SELECT oid, fname, form,
       bool_and(CASE WHEN n = 2 THEN argname = 'id_column' AND argtype = 'name'
                     WHEN n = 3 THEN argname ~ '^[a-z]+_column$' AND argtype = 'name'
                     WHEN argname = 'order_column' THEN n = 5 AND argtype = 'name'
                     WHEN argname = 'verify_column' THEN argtype = 'name'
                         AND EXISTS (SELECT FROM batch_form_args v WHERE v.oid = a.oid
                                     AND v.n = a.n + 1 AND v.argname = 'verify')
                     WHEN n >= 4 THEN argname !~ '_column$'
                     ELSE true END) AS placed
FROM batch_form_args a
WHERE form LIKE 'relation%'
GROUP BY oid, fname, form;

-- every form with its arguments and whether they are those of its
-- reference: the query form of the same function (of the pairs, for a join)
SELECT f.fname, f.form, array_to_string(f.args, ', ') AS arguments,
       CASE f.form
           WHEN 'query' THEN ''
           WHEN 'assign' THEN ''
           WHEN 'join' THEN
               CASE WHEN q.args IS NULL THEN 'no query form of the pairs'
                    WHEN f.args = q.args THEN 'same'
                    ELSE 'differs from ' || q.fname || ': ' || array_to_string(q.args, ', ') END
           ELSE
               CASE WHEN q.args IS NULL THEN 'relation form only'
                    WHEN NOT pl.placed THEN 'own arguments out of place'
                    WHEN f.form = 'relation' AND f.args = q.args THEN 'same'
                    WHEN f.form = 'relation by name' AND f.typed_but_param = q.typed_but_param THEN 'same'
                    ELSE 'differs from the query form: ' || array_to_string(q.args, ', ') END
       END AS against_query_form
FROM batch_forms f
LEFT JOIN batch_forms q ON q.form = 'query'
     AND q.fname = CASE WHEN f.form = 'join' THEN replace(f.fname, '_join', '_pairs') ELSE f.fname END
LEFT JOIN batch_form_placement pl ON pl.oid = f.oid
ORDER BY f.fname, f.form;

-- the same as a count: every relation form that has a query form, and
-- every join, matches
SELECT count(*) AS forms_compared,
       count(*) FILTER (WHERE CASE f.form
           WHEN 'relation' THEN f.args IS DISTINCT FROM q.args OR NOT pl.placed
           WHEN 'relation by name' THEN f.typed_but_param IS DISTINCT FROM q.typed_but_param
                OR NOT pl.placed
           ELSE f.args IS DISTINCT FROM q.args END) AS differing
FROM batch_forms f
LEFT JOIN batch_forms q ON q.form = 'query'
     AND q.fname = CASE WHEN f.form = 'join' THEN replace(f.fname, '_join', '_pairs') ELSE f.fname END
LEFT JOIN batch_form_placement pl ON pl.oid = f.oid
WHERE f.form NOT IN ('query', 'assign') AND (q.args IS NOT NULL OR f.form = 'join');

-- the call of the issue: the relation form takes bands and rows by name, and
-- answers as the query form does with the same bands and rows (one band of
-- all 64 positions: only equal sketches cluster)
CREATE TABLE bf_docs AS
SELECT g AS id, minhash('lorem ipsum dolor sit amet ' || (g % 7) || ' consectetur adipiscing elit '
                        || (g % 3), 64) AS mh
FROM generate_series(1, 60) g;
SELECT t, b AS bands, r AS rows,
       (SELECT count(DISTINCT cluster_id)
        FROM minhash_clusters('bf_docs', 'id', 'mh', t, bands => b, rows => r)) AS relation_form,
       (SELECT count(DISTINCT cluster_id)
        FROM minhash_clusters('SELECT id, mh FROM bf_docs', t, bands => b, rows => r)) AS query_form
FROM unnest(ARRAY[0.3, 0.5]) t, (VALUES (NULL::bigint, NULL::bigint), (1, 64), (2, 2)) v(b, r)
ORDER BY 1, 2 NULLS FIRST;
SELECT (SELECT array_agg(ARRAY[id, cluster_id] ORDER BY id)
        FROM minhash_clusters('bf_docs'::regclass, 'id', 'mh', 0.3, bands => 2, rows => 2, mode => 'components'))
     = (SELECT array_agg(ARRAY[id, cluster_id] ORDER BY id)
        FROM minhash_clusters('SELECT id, mh FROM bf_docs', 0.3, bands => 2, rows => 2, mode => 'components'))
       AS same_clusters;
-- bands and rows are checked as in the query form
SELECT * FROM minhash_clusters('bf_docs', 'id', 'mh', 0.5, bands => 0);
SELECT * FROM minhash_clusters('bf_docs'::regclass, 'id', 'mh', 0.5, 'id', 40, 4);
DROP TABLE bf_docs;
