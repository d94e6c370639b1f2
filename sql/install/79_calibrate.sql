-- nddup install script, part 7.9: a threshold calibrated from pairs a person judges, and the
-- decision stored with the table (docs/quality.md, "Calibrating from pairs you judge").
--
-- nddup_pairs_to_judge() proposes a stratified sample of a table's candidate pairs (every pair
-- whose resemblance reaches a low floor, in strata of equal width of resemblance: a first round
-- spread evenly over the strata, a next round, given the judgements so far, where they are
-- mixed); each proposed pair carries its stratum and the number of candidate pairs in it, so that
-- estimates from the labels are of all the table's candidate pairs, not of the sample
-- (nddup_sample_pairs() is the same over the pairs of any query).  nddup_calibrate() reads the
-- judged pairs and estimates precision, recall and F1 at a threshold over the candidate pairs
-- (the judgements made monotone in the resemblance, each judged pair standing for
-- stratum_pairs / judged pairs of its stratum); the threshold of best F1 is where a logistic fit
-- of the judgements on the resemblance (the sample is stratified on it, so the fit needs no
-- weights) equals half the best estimated F1 (the optimal rule for F1 on a calibrated
-- probability).  Uncertainty: a stratified bootstrap of the judged pairs.  nddup_decide() /
-- nddup_decision() keep the chosen method, threshold and filter with the table in
-- nddup_decisions (dumped by pg_dump; only a table's owner may change its row).

-- the kind of a column for resemblance: minhash, shingleset, text, simhash64 (NULL: none of them)
CREATE FUNCTION @extschema@.nddup_column_kind(rel regclass, column_name name)
	RETURNS text
	LANGUAGE sql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
AS $$
	WITH RECURSIVE t(oid, base) AS (
		SELECT a.atttypid, t.typbasetype FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
		WHERE a.attrelid = rel AND a.attname = column_name AND a.attnum > 0 AND NOT a.attisdropped
		UNION ALL
		SELECT t.base, b.typbasetype FROM t JOIN pg_type b ON b.oid = t.base WHERE t.base <> 0)
	SELECT CASE oid WHEN '@extschema@.minhash_sketch'::regtype THEN 'minhash'
		WHEN '@extschema@.shingleset'::regtype THEN 'shingleset'
		WHEN '@extschema@.simhash64'::regtype THEN 'simhash64'
		WHEN 'text'::regtype THEN 'text' WHEN 'varchar'::regtype THEN 'text'
		WHEN 'bpchar'::regtype THEN 'text' END
	FROM t WHERE base = 0
$$;
COMMENT ON FUNCTION @extschema@.nddup_column_kind(regclass, name)
	IS 'what a column holds for resemblance: minhash, shingleset, simhash64 or text (domains resolved); NULL for any other type or no such column';

CREATE FUNCTION @extschema@.nddup_sample_pairs(pairs text, n integer DEFAULT 100, seed integer DEFAULT 0,
		floor float8 DEFAULT 0.1, strata integer DEFAULT 18, judged regclass DEFAULT NULL)
	RETURNS TABLE (a_id bigint, b_id bigint, similarity float8, stratum integer, stratum_pairs bigint,
		weight float8)
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
AS $$
-- (no search_path of its own: the query runs as the caller wrote it)
#variable_conflict use_column
DECLARE
	taken_sql text := 'false';
	m_h integer[];		-- judged so far (a second round): pairs proposed, judged, duplicates
	j_h integer[];
	k_h integer[];
	gain float8;
	best_gain float8;
	pick integer;
	pq float8;
	avail integer[];
	width float8;
	counts bigint[];
	alloc integer[];
	left_over integer;
	open_strata integer;
	h integer;
	i integer;
	c_a bigint[];
	c_b bigint[];
	c_s float8[];
	c_h integer[];
	c_np bigint[];
	c_r bigint[];
	col name;
	nbad bigint;
	near_min CONSTANT integer := 15;	-- judged pairs before a round goes near the threshold
	near_wide CONSTANT integer := 40;	-- from these on, within near_width of it; before, near_width_few
	near_width CONSTANT float8 := 0.1;
	near_width_few CONSTANT float8 := 0.05;
	t_now float8;		-- the threshold the judgements so far give, and the strata around it
	t_judged integer;
	t_now_width float8 := near_width;
	near_lo integer;
	near_hi integer;
BEGIN
	IF pairs IS NULL OR n IS NULL OR seed IS NULL OR floor IS NULL OR strata IS NULL THEN
		RETURN;
	END IF;
	IF n < 1 OR n > 100000 THEN
		RAISE EXCEPTION 'number of pairs % is out of range', n USING ERRCODE = '22023',
			HINT = 'Ask for 1 to 100,000 pairs (30 to 200 are a person''s work).';
	ELSIF floor <= 0 OR floor >= 1 OR floor <> floor THEN
		RAISE EXCEPTION 'floor % is out of range', floor USING ERRCODE = '22023',
			HINT = 'The lowest resemblance proposed is between 0 and 1 (0.1 by default).';
	ELSIF strata < 1 OR strata > 1000 THEN
		RAISE EXCEPTION 'number of strata % is out of range', strata USING ERRCODE = '22023';
	END IF;
	-- the judged pairs so far: a table with the columns read below (checked here, so that a wrong
	-- table is named as such)
	IF judged IS NOT NULL THEN
		IF NOT EXISTS (SELECT FROM pg_catalog.pg_class c WHERE c.oid = judged) THEN
			RAISE EXCEPTION 'relation with OID % does not exist', judged::oid USING ERRCODE = '42P01';
		END IF;
		FOREACH col IN ARRAY ARRAY['a_id', 'b_id', 'stratum', 'is_duplicate'] LOOP
			IF NOT EXISTS (SELECT FROM pg_catalog.pg_attribute a WHERE a.attrelid = judged AND a.attname = col
					AND a.attnum > 0 AND NOT a.attisdropped) THEN
				RAISE EXCEPTION 'column "%" of relation "%" does not exist', col, judged USING ERRCODE = '42703',
					HINT = 'The judged pairs are the rows of nddup_pairs_to_judge() with is_duplicate boolean (NULL: not judged).';
			END IF;
		END LOOP;
	END IF;
	width := (1 - floor) / strata;

	-- one pass: each pair's stratum, the stratum's size and the rank in a seeded order of the
	-- stratum of the pairs not proposed yet; only the first n of each stratum are kept (no
	-- stratum gets more)
	IF judged IS NOT NULL THEN
		taken_sql := format('EXISTS (SELECT FROM %s j WHERE j.a_id = q.id1 AND j.b_id = q.id2)', judged);
	END IF;
	EXECUTE format('SELECT array_agg(id1 ORDER BY h, r), array_agg(id2 ORDER BY h, r), array_agg(s ORDER BY h, r), '
		'array_agg(h ORDER BY h, r), array_agg(np ORDER BY h, r), array_agg(r ORDER BY h, r), max(nbad) FROM ('
		'SELECT id1, id2, s, h, np, nbad, row_number() OVER (PARTITION BY h ORDER BY '
		'pg_catalog.hashint8extended(id1, $1) # pg_catalog.hashint8extended(id2, $1 + 1), id1, id2) AS r '
		'FROM (SELECT q.*, count(*) OVER (PARTITION BY h) AS np, '
		'count(*) FILTER (WHERE NOT q.s <= 1 + 1e-12) OVER () AS nbad, %s AS taken '
		'FROM (SELECT id1, id2, s, least($2 - 1, pg_catalog.floor((s - $3) / $4 + 1e-9))::integer AS h '
		'FROM (SELECT least(p.id1, p.id2) AS id1, greatest(p.id1, p.id2) AS id2, p.s FROM (%s) p(id1, id2, s) '
		'WHERE p.s >= $3 - 1e-12 AND p.id1 <> p.id2) p) q) t WHERE NOT taken) x WHERE r <= $5', taken_sql, pairs)
		INTO c_a, c_b, c_s, c_h, c_np, c_r, nbad
		USING seed::bigint, strata, floor, width, n;
	IF nbad > 0 THEN
		RAISE EXCEPTION 'the pairs query returned % similarities above 1 or NaN', nbad USING ERRCODE = '22023',
			HINT = 'A similarity is between 0 and 1.';
	ELSIF c_a IS NULL THEN
		RETURN;
	END IF;

	counts := array_fill(0::bigint, ARRAY[strata]);
	FOR i IN 1 .. cardinality(c_h) LOOP
		counts[c_h[i] + 1] := c_np[i];
	END LOOP;
	alloc := array_fill(0, ARRAY[strata]);
	m_h := array_fill(0, ARRAY[strata]);
	left_over := n;
	IF judged IS NULL THEN
		-- a first round: n spread evenly over the strata that have pairs (water-filling: a
		-- stratum with fewer pairs than its share gives the rest to the others); what does not
		-- divide evenly goes one pair each to strata in a seeded order
		SELECT count(*) INTO open_strata FROM unnest(counts) x WHERE x > 0;
		FOR h IN SELECT g FROM generate_series(1, strata) g WHERE counts[g] > 0 ORDER BY counts[g], g LOOP
			alloc[h] := least(counts[h], left_over / open_strata);
			left_over := left_over - alloc[h];
			open_strata := open_strata - 1;
		END LOOP;
		FOR h IN SELECT g FROM generate_series(1, strata) g WHERE alloc[g] < counts[g]
				ORDER BY pg_catalog.hashint4extended(g, seed), g LOOP
			EXIT WHEN left_over = 0;
			alloc[h] := alloc[h] + 1;
			left_over := left_over - 1;
		END LOOP;
	ELSE
		-- a next round: each pair goes where it most reduces sum N_h Var(p_h), p_h the stratum's
		-- share of duplicates: one pair at a time to the stratum with the largest
		-- N p (1 - p) (1 / m - 1 / (m + 1)), p the share of duplicates so far in the stratum and
		-- its two neighbours, (duplicates + 1/2) / (judged + 1).  That is Bankier's power
		-- allocation (n_h ~ N_h^(1/2) sd_h, "Power allocations: determining sample sizes for
		-- subnational areas", The American Statistician 42(3), 1988): between Neyman's (n_h ~ N_h
		-- sd_h), which would spend every label on the many pairs of the lowest strata, and equal
		-- shares, and in either case none where the labels so far agree.  Once near_min pairs are
		-- judged, the round goes only to the strata within near_width of the threshold they give
		-- (nddup_calibrate's; within near_width_few while fewer than near_wide are judged, as after
		-- a first round of 15; the others when those run out of pairs): the judgements then find
		-- where the share of duplicates steps up, which the fit over the whole range smooths
		-- (uncertainty sampling, as record-linkage tools such as dedupe do it).
		j_h := array_fill(0, ARRAY[strata]);
		k_h := array_fill(0, ARRAY[strata]);
		EXECUTE format('SELECT array_agg(coalesce(l.m, 0) ORDER BY g.h), '
			'array_agg(coalesce(l.j, 0) ORDER BY g.h), array_agg(coalesce(l.k, 0) ORDER BY g.h) '
			'FROM generate_series(0, $1 - 1) g(h) LEFT JOIN (SELECT stratum AS h, count(*)::integer AS m, '
			'count(is_duplicate)::integer AS j, count(*) FILTER (WHERE is_duplicate)::integer AS k '
			'FROM %s GROUP BY 1) l ON l.h = g.h', judged)
			INTO m_h, j_h, k_h USING strata;
		-- the pairs of each stratum not proposed yet (at most n kept)
		avail := array_fill(0, ARRAY[strata]);
		FOR i IN 1 .. cardinality(c_h) LOOP
			avail[c_h[i] + 1] := avail[c_h[i] + 1] + 1;
		END LOOP;
		IF EXISTS (SELECT FROM pg_catalog.pg_attribute a WHERE a.attrelid = judged AND a.attname = 'similarity'
					AND a.attnum > 0 AND NOT a.attisdropped)
				AND EXISTS (SELECT FROM pg_catalog.pg_attribute a WHERE a.attrelid = judged
					AND a.attname = 'stratum_pairs' AND a.attnum > 0 AND NOT a.attisdropped) THEN
			SELECT c.threshold, c.judged INTO t_now, t_judged
				FROM @extschema@.nddup_calibrate(judged, bootstrap => 0) c WHERE c.judged >= near_min;
		END IF;
		near_lo := 0;
		near_hi := strata - 1;
		IF t_now IS NOT NULL THEN
			IF t_judged < near_wide THEN
				t_now_width := near_width_few;
			END IF;
			near_lo := greatest(0, pg_catalog.floor((t_now - t_now_width - floor) / width + 1e-9)::integer);
			near_hi := least(strata - 1, pg_catalog.floor((t_now + t_now_width - floor) / width - 1e-9)::integer);
		END IF;
		WHILE left_over > 0 LOOP
			best_gain := 0;
			pick := NULL;
			FOR h IN near_lo + 1 .. near_hi + 1 LOOP
				CONTINUE WHEN alloc[h] >= avail[h];
				pq := (coalesce(k_h[h - 1], 0) + k_h[h] + coalesce(k_h[h + 1], 0) + 0.5)
					/ (coalesce(j_h[h - 1], 0) + j_h[h] + coalesce(j_h[h + 1], 0) + 1);
				gain := counts[h] * pq * (1 - pq) / greatest(1, m_h[h] + alloc[h]) / (m_h[h] + alloc[h] + 1);
				IF gain > best_gain THEN
					best_gain := gain;
					pick := h;
				END IF;
			END LOOP;
			IF pick IS NULL AND (near_lo > 0 OR near_hi < strata - 1) THEN
				-- the strata near the threshold have no pairs left: the others
				near_lo := 0;
				near_hi := strata - 1;
				CONTINUE;
			END IF;
			EXIT WHEN pick IS NULL;
			alloc[pick] := alloc[pick] + 1;
			left_over := left_over - 1;
		END LOOP;
	END IF;

	RETURN QUERY SELECT u.a, u.b, round(u.s::numeric, 6)::float8, u.h, u.np, u.np::float8 / (m_h[u.h + 1] + alloc[u.h + 1])
		FROM unnest(c_a, c_b, c_s, c_h, c_np, c_r) u(a, b, s, h, np, r)
		WHERE u.r <= alloc[u.h + 1]
		ORDER BY u.h, u.r;
END
$$;
COMMENT ON FUNCTION @extschema@.nddup_sample_pairs(text, integer, integer, float8, integer, regclass)
	IS 'n of the candidate pairs a query returns (id1, id2, similarity; those >= floor) for a person to judge, as nddup_pairs_to_judge proposes them';

CREATE FUNCTION @extschema@.nddup_pairs_to_judge(rel regclass, id_column name, column_name name,
		n integer DEFAULT 100, seed integer DEFAULT 0, floor float8 DEFAULT 0.1,
		strata integer DEFAULT 18, judged regclass DEFAULT NULL)
	RETURNS TABLE (a_id bigint, b_id bigint, similarity float8, stratum integer, stratum_pairs bigint,
		weight float8)
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
	kind text;
	pairs_sql text;
BEGIN
	IF rel IS NULL OR id_column IS NULL OR column_name IS NULL OR n IS NULL OR seed IS NULL OR floor IS NULL
			OR strata IS NULL THEN
		RETURN;
	ELSIF NOT EXISTS (SELECT FROM pg_class c WHERE c.oid = rel) THEN
		RAISE EXCEPTION 'relation with OID % does not exist', rel::oid USING ERRCODE = '42P01';
	END IF;
	IF @extschema@.nddup_column_kind(rel, id_column) IS NOT NULL OR NOT EXISTS (SELECT FROM pg_attribute a
			WHERE a.attrelid = rel AND a.attname = id_column AND a.attnum > 0 AND NOT a.attisdropped) THEN
		RAISE EXCEPTION 'column "%" of relation "%" is not an id column', id_column, rel
			USING ERRCODE = '42804', HINT = 'The id column must be an integer column (or a domain over one).';
	END IF;
	kind := @extschema@.nddup_column_kind(rel, column_name);
	IF kind IS NULL OR kind = 'simhash64' THEN
		RAISE EXCEPTION 'column "%" of relation "%" is not a minhash_sketch, shingleset or text column',
				column_name, rel
			USING ERRCODE = '42804',
				HINT = 'Pass the column of min-hash sketches or shingle sets the duplicates are found by, or the text (exact Jaccard of its shingle sets).';
	END IF;
	-- every candidate pair: exact Jaccard of shingle sets (a text column: of its shingle_set), or
	-- the min-hash estimate (the floor is checked by nddup_sample_pairs)
	pairs_sql := CASE kind
		WHEN 'shingleset' THEN format('SELECT id1, id2, similarity FROM @extschema@.shingleset_pairs(%L, %L, %L, %s)',
			rel, id_column, column_name, floor)
		WHEN 'minhash' THEN format('SELECT id1, id2, resemblance FROM @extschema@.minhash_pairs(%L::regclass, %L, %L, %s)',
			rel, id_column, column_name, floor)
		ELSE format('SELECT id1, id2, similarity FROM @extschema@.shingleset_pairs(%L, %s)',
			format('SELECT %I::bigint, @extschema@.shingle_set(%I) FROM %s WHERE %I IS NOT NULL AND %I IS NOT NULL',
				id_column, column_name, rel, id_column, column_name), floor) END;

	RETURN QUERY SELECT * FROM @extschema@.nddup_sample_pairs(pairs_sql, n, seed, floor, strata, judged);
END
$$;
COMMENT ON FUNCTION @extschema@.nddup_pairs_to_judge(regclass, name, name, integer, integer, float8, integer, regclass)
	IS 'n candidate pairs (resemblance >= floor) of a table''s column for a person to judge, a seeded sample spread evenly over strata of resemblance (with judged: more where the labels so far are mixed); each with its stratum, the stratum''s number of candidate pairs and its sampling weight';

-- precision, recall and F1 estimated from a labels table (the rows of nddup_pairs_to_judge and
-- is_duplicate), at the threshold of best estimated F1, the lowest one reaching a precision floor,
-- or a given one
CREATE FUNCTION @extschema@.nddup_calibrate(labels regclass, at_threshold float8 DEFAULT NULL,
		min_precision float8 DEFAULT NULL, bootstrap integer DEFAULT 200, seed integer DEFAULT 0,
		first_guess float8 DEFAULT NULL)
	RETURNS TABLE (threshold float8, "precision" float8, recall float8, f1 float8,
		precision_low float8, precision_high float8, recall_low float8, recall_high float8,
		f1_low float8, f1_high float8, threshold_low float8, threshold_high float8,
		judged integer, duplicates integer, candidate_pairs bigint, flagged_pairs bigint, note text)
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
	ridge CONSTANT float8 := 1e-4;		-- on both coefficients: separable labels stay finite
	guess_margin CONSTANT float8 := 0.003;	-- first_guess is kept unless beaten by more
	kept_guess boolean := false;
	f_guess float8;
	f_hat float8;
	s float8[];			-- the judged pairs: similarity, stratum, label (0/1)
	h integer[];
	y float8[];
	w float8[];			-- candidate pairs each judged pair stands for
	nj_h integer[];		-- per stratum: judged pairs, and where they start (idx)
	nstrata integer;
	m integer;
	col text;
	fixed_t boolean := at_threshold IS NOT NULL;
	est float8[];
	fa float8;			-- the logistic fit and its Newton iteration
	fb float8;
	slope float8;
	ga float8;
	gb float8;
	haa float8;
	hab float8;
	hbb float8;
	det float8;
	da float8;
	db float8;
	z float8;
	pz float8;
	v float8;
	it integer;
	cs float8[];		-- by similarity, descending: pairs flagged and duplicates among them
	cfl float8[];
	ctp float8[];
	cpos float8;
	ps float8[];		-- the pairs by similarity (ties pooled) and their monotone fit
	py float8[];
	pw float8[];
	blk_wy float8[] := '{}';
	blk_w float8[] := '{}';
	blk_end integer[] := '{}';
	nb integer;
	t_hat float8;
	f_best float8;
	r integer;
	i integer;
	j integer;
	k integer;
	idx integer[];
	b_s float8[];
	b_y float8[];
	b_w float8[];
	p_r float8[] := '{}';
	r_r float8[] := '{}';
	f_r float8[] := '{}';
	t_r float8[] := '{}';
	bt float8;
BEGIN
	IF labels IS NULL OR bootstrap IS NULL OR seed IS NULL THEN
		RETURN;
	ELSIF NOT EXISTS (SELECT FROM pg_class c WHERE c.oid = labels) THEN
		RAISE EXCEPTION 'relation with OID % does not exist', labels::oid USING ERRCODE = '42P01';
	END IF;
	FOREACH col IN ARRAY ARRAY['a_id', 'b_id', 'similarity', 'stratum', 'stratum_pairs', 'is_duplicate'] LOOP
		IF NOT EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = labels AND a.attname = col
				AND a.attnum > 0 AND NOT a.attisdropped) THEN
			RAISE EXCEPTION 'column "%" of relation "%" does not exist', col, labels USING ERRCODE = '42703',
				HINT = 'A labels table holds the rows of nddup_pairs_to_judge() (a_id, b_id, similarity, stratum, stratum_pairs) and is_duplicate boolean (NULL: not judged).';
		END IF;
	END LOOP;
	IF bootstrap < 0 OR bootstrap > 10000 THEN
		RAISE EXCEPTION 'number of bootstrap samples % is out of range', bootstrap USING ERRCODE = '22023',
			HINT = 'Use 0 (no intervals) to 10,000 (200 by default).';
	ELSIF min_precision IS NOT NULL AND (min_precision <= 0 OR min_precision > 1) THEN
		RAISE EXCEPTION 'precision floor % is out of range', min_precision USING ERRCODE = '22023';
	ELSIF at_threshold < 0 OR at_threshold > 1 OR at_threshold <> at_threshold THEN
		RAISE EXCEPTION 'threshold % is out of range', at_threshold USING ERRCODE = '22023';
	ELSIF first_guess < 0 OR first_guess > 1 OR first_guess <> first_guess THEN
		RAISE EXCEPTION 'first guess % is out of range', first_guess USING ERRCODE = '22023',
			HINT = 'The first guess is a threshold between 0 and 1, e.g. nddup_recommend_threshold()''s.';
	END IF;

	-- the judged pairs, by stratum (a stratum's size is its largest stratum_pairs)
	EXECUTE format('SELECT array_agg(l.similarity ORDER BY l.stratum, l.similarity, l.a), '
		'array_agg(l.stratum ORDER BY l.stratum, l.similarity, l.a), '
		'array_agg(l.y ORDER BY l.stratum, l.similarity, l.a), array_agg(l.w ORDER BY l.stratum, l.similarity, l.a) '
		'FROM (SELECT similarity::float8 AS similarity, stratum::integer AS stratum, '
		'CASE WHEN is_duplicate THEN 1 ELSE 0 END::float8 AS y, '
		'max(stratum_pairs) OVER (PARTITION BY stratum)::float8 / count(*) OVER (PARTITION BY stratum) AS w, '
		'row_number() OVER (ORDER BY a_id, b_id) AS a FROM %s '
		'WHERE is_duplicate IS NOT NULL AND similarity IS NOT NULL AND stratum IS NOT NULL) l', labels)
		INTO s, h, y, w;
	IF EXISTS (SELECT FROM unnest(w) q(x) WHERE q.x < 1 - 1e-9 OR q.x <> q.x) THEN
		RAISE EXCEPTION 'labels table "%" has more judged pairs in a stratum than its stratum_pairs', labels
			USING ERRCODE = '22023';
	END IF;
	m := coalesce(cardinality(s), 0);
	judged := m;
	duplicates := coalesce((SELECT sum(q.x) FROM unnest(y) q(x)), 0)::integer;
	candidate_pairs := round((SELECT sum(q.x) FROM unnest(w) q(x)))::bigint;
	IF m >= 2 AND duplicates = m AND NOT fixed_t AND min_precision IS NULL THEN
		-- every judged pair a duplicate: the lowest judged similarity flags them all (the pairs
		-- are sorted by stratum and similarity)
		threshold := round(s[1]::numeric, 4)::float8;
		"precision" := 1; recall := 1; f1 := 1;
		flagged_pairs := candidate_pairs;
		note := format('all %s judged pairs are duplicates: the lowest judged similarity (judge more pairs to know more)', m);
		RETURN NEXT;
		RETURN;
	ELSIF m < 2 OR duplicates = 0 OR duplicates = m THEN
		note := format('%s judged pairs, %s of them duplicates: judge more pairs (at least one of each kind)',
			m, duplicates);
		threshold := NULL;
		candidate_pairs := NULL;
		RETURN NEXT;
		RETURN;
	END IF;
	-- the strata: where each starts in the arrays, its size and judged pairs (for the bootstrap)
	SELECT array_agg(f ORDER BY g), array_agg(c ORDER BY g), count(*) INTO idx, nj_h, nstrata
		FROM (SELECT h[gi] AS g, min(gi) AS f, count(*)::integer AS c FROM generate_series(1, m) gi GROUP BY 1) q;

	-- bootstrap replicate 0 is the judged pairs themselves; replicate r draws each stratum's
	-- judged pairs again with replacement (seeded)
	FOR r IN 0 .. bootstrap LOOP
		IF r = 0 THEN
			b_s := s; b_y := y; b_w := w;
		ELSE
			b_s := '{}'; b_y := '{}'; b_w := '{}';
			FOR j IN 1 .. nstrata LOOP
				FOR k IN 1 .. nj_h[j] LOOP
					i := idx[j] + (pg_catalog.hashint8extended(r::bigint * 1000003 + (idx[j] + k), seed)
						& 2147483647) % nj_h[j];
					b_s := b_s || s[i]; b_y := b_y || y[i]; b_w := b_w || w[i];
				END LOOP;
			END LOOP;
		END IF;
		-- the fit: p(duplicate) = 1 / (1 + exp(-(a + b z))), z = 10 (similarity - 0.5), by Newton's
		-- method on the log-likelihood with a small ridge (separable labels stay finite)
		fa := 0; fb := 0;
		FOR it IN 1 .. 100 LOOP
			ga := ridge * fa; gb := ridge * fb; haa := ridge; hab := 0; hbb := ridge;
			FOR i IN 1 .. cardinality(b_s) LOOP
				z := 10 * (b_s[i] - 0.5);
				pz := 1 / (1 + exp(-least(700, greatest(-700, fa + fb * z))));
				ga := ga + (pz - b_y[i]); gb := gb + (pz - b_y[i]) * z;
				v := pz * (1 - pz);
				haa := haa + v; hab := hab + v * z; hbb := hbb + v * z * z;
			END LOOP;
			det := haa * hbb - hab * hab;
			da := (hbb * ga - hab * gb) / det; db := (haa * gb - hab * ga) / det;
			-- a step of at most 5 in either coefficient keeps the iteration stable
			v := greatest(1, abs(da) / 5, abs(db) / 5);
			fa := fa - da / v; fb := fb - db / v;
			EXIT WHEN abs(da) + abs(db) < 1e-9;
		END LOOP;
		-- each pair's fitted probability; the estimates at every judged similarity as threshold:
		-- pairs flagged, duplicates among them and all duplicates (each judged pair standing for
		-- its weight in candidate pairs)
		SELECT array_agg(u.s ORDER BY u.s DESC), array_agg(u.fl ORDER BY u.s DESC), array_agg(u.tp ORDER BY u.s DESC),
				max(u.pos)
			INTO cs, cfl, ctp, cpos
			FROM (SELECT q.s, sum(q.w) OVER o AS fl, sum(q.w * q.p) OVER o AS tp, sum(q.w * q.p) OVER () AS pos
				FROM (SELECT x.s, x.w, 1 / (1 + exp(-least(700, greatest(-700, fa + fb * 10 * (x.s - 0.5))))) AS p
					FROM unnest(b_s, b_w) x(s, w)) q
				WINDOW o AS (ORDER BY q.s DESC)) u;
		-- the threshold: the given one, the lowest judged similarity whose estimated precision
		-- reaches the floor, or where the fitted probability equals half the best estimated F1
		-- (the optimal rule for F1 on a calibrated probability)
		IF fixed_t THEN
			bt := at_threshold;
		ELSIF min_precision IS NOT NULL THEN
			SELECT min(cs[gi]) INTO bt FROM generate_series(1, cardinality(cs)) gi
				WHERE ctp[gi] / cfl[gi] >= min_precision - 1e-12;
		ELSE
			SELECT max(2 * ctp[gi] / (cfl[gi] + cpos)) INTO f_best FROM generate_series(1, cardinality(cs)) gi;
			IF fb > 0 THEN
				bt := least(1, greatest(s[1], 0.5 + (ln(f_best / (2 - f_best)) - fa) / fb / 10));
			ELSE
				SELECT cs[gi] INTO bt FROM generate_series(1, cardinality(cs)) gi
					ORDER BY 2 * ctp[gi] / (cfl[gi] + cpos) DESC, cs[gi] LIMIT 1;
			END IF;
			-- a first guess (the recommender's threshold) stays unless the fitted probabilities
			-- give the threshold found an estimated F1 higher by more than guess_margin: where
			-- the judgements cannot tell the two apart, the guess from all the pairs' density
			-- is the steadier one
			IF first_guess IS NOT NULL THEN
				SELECT 2 * sum(q.w * q.p) FILTER (WHERE q.s >= bt - 1e-12)
						/ (sum(q.w) FILTER (WHERE q.s >= bt - 1e-12) + sum(q.w * q.p)),
					2 * sum(q.w * q.p) FILTER (WHERE q.s >= first_guess - 1e-12)
						/ (sum(q.w) FILTER (WHERE q.s >= first_guess - 1e-12) + sum(q.w * q.p))
					INTO f_hat, f_guess
					FROM (SELECT x.s, x.w, 1 / (1 + exp(-least(700, greatest(-700, fa + fb * 10 * (x.s - 0.5))))) AS p
						FROM unnest(b_s, b_w) x(s, w)) q;
				IF coalesce(f_hat, 0) - coalesce(f_guess, 0) <= guess_margin THEN
					bt := first_guess;
					kept_guess := kept_guess OR r = 0;
				END IF;
			END IF;
		END IF;
		IF r = 0 THEN
			t_hat := bt;
			slope := fb;
			IF t_hat IS NULL THEN
				note := format('no threshold reaches an estimated precision of %s', min_precision);
				threshold := NULL;
				RETURN NEXT;
				RETURN;
			END IF;
		END IF;
		-- precision, recall and F1 at the chosen threshold (the pairs with similarity >= it): each
		-- judged pair's label made monotone in the similarity (pool-adjacent-violators, pooled by
		-- weight, so each pool's value is its weighted share of duplicates), standing for its weight
		SELECT array_agg(x.s ORDER BY x.s), array_agg(x.y ORDER BY x.s), array_agg(x.w ORDER BY x.s)
			INTO ps, py, pw
			FROM (SELECT u.s, sum(u.w * u.y) / sum(u.w) AS y, sum(u.w) AS w
				FROM unnest(b_s, b_y, b_w) u(s, y, w) GROUP BY u.s) x;
		nb := 0;
		FOR i IN 1 .. cardinality(ps) LOOP
			nb := nb + 1;
			blk_wy[nb] := py[i] * pw[i]; blk_w[nb] := pw[i]; blk_end[nb] := i;
			WHILE nb > 1 AND blk_wy[nb - 1] / blk_w[nb - 1] > blk_wy[nb] / blk_w[nb] LOOP
				blk_wy[nb - 1] := blk_wy[nb - 1] + blk_wy[nb];
				blk_w[nb - 1] := blk_w[nb - 1] + blk_w[nb];
				blk_end[nb - 1] := blk_end[nb];
				nb := nb - 1;
			END LOOP;
		END LOOP;
		v := 0; z := 0; cpos := 0; j := 1;
		FOR i IN 1 .. cardinality(ps) LOOP
			WHILE blk_end[j] < i LOOP
				j := j + 1;
			END LOOP;
			pz := blk_wy[j] / blk_w[j];
			cpos := cpos + pw[i] * pz;
			IF ps[i] >= t_hat - 1e-12 THEN
				v := v + pw[i]; z := z + pw[i] * pz;
			END IF;
		END LOOP;
		IF r = 0 THEN
			est := ARRAY[z / nullif(v, 0), z / nullif(cpos, 0), 2 * z / nullif(v + cpos, 0), v];
		ELSE
			p_r := p_r || coalesce(z / nullif(v, 0), 'NaN'); r_r := r_r || (z / cpos);
			f_r := f_r || (2 * z / (v + cpos)); t_r := t_r || coalesce(bt, 'NaN');
		END IF;
	END LOOP;

	threshold := round(t_hat::numeric, 4)::float8;
	"precision" := round(est[1]::numeric, 4)::float8;
	recall := round(est[2]::numeric, 4)::float8;
	f1 := round(est[3]::numeric, 4)::float8;
	flagged_pairs := round(est[4])::bigint;
	IF bootstrap > 0 THEN
		SELECT round(percentile_cont(0.025) WITHIN GROUP (ORDER BY q.x)::numeric, 4)::float8,
				round(percentile_cont(0.975) WITHIN GROUP (ORDER BY q.x)::numeric, 4)::float8
			INTO precision_low, precision_high FROM unnest(p_r) q(x) WHERE q.x = q.x;
		SELECT round(percentile_cont(0.025) WITHIN GROUP (ORDER BY q.x)::numeric, 4)::float8,
				round(percentile_cont(0.975) WITHIN GROUP (ORDER BY q.x)::numeric, 4)::float8
			INTO recall_low, recall_high FROM unnest(r_r) q(x) WHERE q.x = q.x;
		SELECT round(percentile_cont(0.025) WITHIN GROUP (ORDER BY q.x)::numeric, 4)::float8,
				round(percentile_cont(0.975) WITHIN GROUP (ORDER BY q.x)::numeric, 4)::float8
			INTO f1_low, f1_high FROM unnest(f_r) q(x) WHERE q.x = q.x;
		IF NOT fixed_t THEN
			SELECT round(percentile_cont(0.025) WITHIN GROUP (ORDER BY q.x)::numeric, 4)::float8,
					round(percentile_cont(0.975) WITHIN GROUP (ORDER BY q.x)::numeric, 4)::float8
				INTO threshold_low, threshold_high FROM unnest(t_r) q(x) WHERE q.x = q.x;
		END IF;
	END IF;
	note := CASE WHEN fixed_t THEN 'estimates at the given threshold'
		WHEN min_precision IS NOT NULL THEN format('the lowest threshold with estimated precision >= %s', min_precision)
		WHEN kept_guess THEN format('the first guess: the judgements give no threshold with an estimated F1 higher by more than %s',
			guess_margin)
		WHEN slope <= 0 THEN 'the duplicates do not become more likely with resemblance: the judged similarity of best estimated F1'
		ELSE 'the threshold of best estimated F1' END
		|| format('; %s judged pairs, %s strata', m, nstrata);
	RETURN NEXT;
END
$$;
COMMENT ON FUNCTION @extschema@.nddup_calibrate(regclass, float8, float8, integer, integer, float8)
	IS 'from judged pairs of nddup_pairs_to_judge (a labels table): the threshold of best estimated F1 (or the lowest reaching min_precision, or the given one; with first_guess, that one unless the judgements give a threshold with an estimated F1 higher by more than 0.003), with estimated precision, recall and F1 over all candidate pairs and stratified-bootstrap 95% intervals';

-- the decision kept with a table: one row per (table, column); pg_dump dumps the rows (a
-- configuration table of the extension).  Everyone may read the row of a table they may read;
-- only the table's owner (a member of the owning role) may add, change or remove it, and
-- anyone may remove a row whose table no longer exists (row-level security; nddup_decide checks
-- ownership first and says so).
CREATE TABLE @extschema@.nddup_decisions (
	relid regclass NOT NULL,
	column_name name NOT NULL,
	method text NOT NULL CHECK (method IN ('minhash', 'shingleset', 'simhash64', 'text')),
	threshold float8 CHECK (threshold >= 0 AND threshold <= 1),
	radius integer CHECK (radius >= 0 AND radius <= 64),
	source_column name,
	filter @extschema@.shingle_filter,
	note text,
	decided_by name NOT NULL DEFAULT current_user,
	decided_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (relid, column_name),
	CHECK ((method = 'simhash64') = (radius IS NOT NULL) AND (method = 'simhash64') = (threshold IS NULL))
);
COMMENT ON TABLE @extschema@.nddup_decisions
	IS 'the chosen method, threshold (radius) and boilerplate filter of a table''s column (nddup_decide, nddup_decision); dumped by pg_dump';
SELECT pg_catalog.pg_extension_config_dump('@extschema@.nddup_decisions', '');
GRANT SELECT, INSERT, UPDATE, DELETE ON @extschema@.nddup_decisions TO PUBLIC;
ALTER TABLE @extschema@.nddup_decisions ENABLE ROW LEVEL SECURITY;
CREATE POLICY nddup_decisions_read ON @extschema@.nddup_decisions FOR SELECT
	USING (coalesce(pg_catalog.has_table_privilege(relid::oid, 'SELECT'), true));
CREATE POLICY nddup_decisions_owner ON @extschema@.nddup_decisions FOR ALL
	USING (coalesce((SELECT pg_catalog.pg_has_role(c.relowner, 'USAGE') FROM pg_catalog.pg_class c
		WHERE c.oid = relid::oid), true))
	WITH CHECK ((SELECT pg_catalog.pg_has_role(c.relowner, 'USAGE') FROM pg_catalog.pg_class c
		WHERE c.oid = relid::oid));

-- a change of a decision reaches the tables' triggers: their settings, cached per session, are
-- read again (src/trigger/trigger_decision.c)
CREATE FUNCTION @extschema@.nddup_decisions_changed() RETURNS trigger
	AS 'MODULE_PATHNAME' LANGUAGE C;
COMMENT ON FUNCTION @extschema@.nddup_decisions_changed()
	IS 'AFTER row trigger on nddup_decisions: invalidates the cached settings of the nddup_dedup_trigger triggers of the table of a changed decision';
CREATE TRIGGER nddup_decisions_changed AFTER INSERT OR UPDATE OR DELETE ON @extschema@.nddup_decisions
	FOR EACH ROW EXECUTE FUNCTION @extschema@.nddup_decisions_changed();

CREATE FUNCTION @extschema@.nddup_decide(rel regclass, column_name name, threshold float8 DEFAULT NULL,
		radius integer DEFAULT NULL, filter @extschema@.shingle_filter DEFAULT NULL,
		source_column name DEFAULT NULL, note text DEFAULT NULL)
	RETURNS SETOF @extschema@.nddup_decisions
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
	kind text;
BEGIN
	IF rel IS NULL OR column_name IS NULL THEN
		RAISE EXCEPTION 'the table and the column are required' USING ERRCODE = '22004';
	ELSIF NOT EXISTS (SELECT FROM pg_class c WHERE c.oid = rel) THEN
		RAISE EXCEPTION 'relation with OID % does not exist', rel::oid USING ERRCODE = '42P01';
	ELSIF NOT (SELECT pg_has_role(c.relowner, 'USAGE') FROM pg_class c WHERE c.oid = rel) THEN
		RAISE EXCEPTION 'must be owner of table %', rel USING ERRCODE = '42501',
			HINT = 'Only the owner of a table decides what its duplicates are.';
	END IF;
	kind := @extschema@.nddup_column_kind(rel, column_name);
	IF kind IS NULL THEN
		RAISE EXCEPTION 'column "%" of relation "%" is not a minhash_sketch, shingleset, simhash64 or text column',
			column_name, rel USING ERRCODE = '42804';
	END IF;
	IF source_column IS NOT NULL AND @extschema@.nddup_column_kind(rel, source_column) IS DISTINCT FROM 'text' THEN
		RAISE EXCEPTION 'source column "%" of relation "%" is not a text column', source_column, rel
			USING ERRCODE = '42804';
	END IF;
	-- remove the decisions of tables that no longer exist
	DELETE FROM @extschema@.nddup_decisions d WHERE NOT EXISTS (SELECT FROM pg_class c WHERE c.oid = d.relid);
	IF threshold IS NULL AND radius IS NULL THEN
		-- no threshold and no radius: the decision is withdrawn
		RETURN QUERY DELETE FROM @extschema@.nddup_decisions d
			WHERE d.relid = rel AND d.column_name = column_name RETURNING d.*;
		RETURN;
	ELSIF kind = 'simhash64' AND (radius IS NULL OR threshold IS NOT NULL) THEN
		RAISE EXCEPTION 'a simhash64 column takes a radius, not a threshold' USING ERRCODE = '22023';
	ELSIF kind <> 'simhash64' AND (threshold IS NULL OR radius IS NOT NULL) THEN
		RAISE EXCEPTION 'a % column takes a threshold, not a radius', kind USING ERRCODE = '22023';
	ELSIF threshold < 0 OR threshold > 1 OR threshold <> threshold THEN
		RAISE EXCEPTION 'threshold % is out of range', threshold USING ERRCODE = '22023';
	ELSIF radius < 0 OR radius > 64 THEN
		RAISE EXCEPTION 'radius % is out of range', radius USING ERRCODE = '22023';
	END IF;
	RETURN QUERY INSERT INTO @extschema@.nddup_decisions AS d (relid, column_name, method, threshold, radius,
			source_column, filter, note)
		VALUES (rel, column_name, kind, threshold, radius, source_column, filter, note)
		ON CONFLICT ON CONSTRAINT nddup_decisions_pkey DO UPDATE SET method = excluded.method,
			threshold = excluded.threshold, radius = excluded.radius, source_column = excluded.source_column,
			filter = excluded.filter, note = excluded.note, decided_by = current_user, decided_at = now()
		RETURNING d.*;
END
$$;
COMMENT ON FUNCTION @extschema@.nddup_decide(regclass, name, float8, integer, @extschema@.shingle_filter, name, text)
	IS 'keep the chosen threshold (simhash64: radius), boilerplate filter and source column of a table''s column in nddup_decisions (owner only); without a threshold or radius, remove it';

CREATE FUNCTION @extschema@.nddup_decision(rel regclass, col name DEFAULT NULL, check_rows integer DEFAULT 100)
	RETURNS TABLE (relid regclass, column_name name, method text, threshold float8, radius integer,
		source_column name, filtered boolean, decided_by name, decided_at timestamptz, note text,
		column_check text)
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
	d record;
	expr text;
	checked bigint;
	same_filter bigint;
	same_plain bigint;
BEGIN
	FOR d IN SELECT * FROM @extschema@.nddup_decisions x
			WHERE x.relid = rel AND (col IS NULL OR x.column_name = col) ORDER BY x.column_name LOOP
		relid := d.relid; column_name := d.column_name; method := d.method; threshold := d.threshold;
		radius := d.radius; source_column := d.source_column; filtered := d.filter IS NOT NULL;
		decided_by := d.decided_by; decided_at := d.decided_at; note := d.note;
		column_check := NULL;
		-- a sketch, set or fingerprint column computed from its source: recompute a sample of its
		-- rows with the decided filter (and without) and compare
		IF d.source_column IS NULL OR d.method = 'text' THEN
			column_check := CASE WHEN d.method = 'text' THEN 'the text itself: nothing to check'
				ELSE 'no source column: not checked' END;
		ELSIF @extschema@.nddup_column_kind(rel, d.column_name) IS DISTINCT FROM d.method
				OR @extschema@.nddup_column_kind(rel, d.source_column) IS DISTINCT FROM 'text' THEN
			column_check := 'the column or its source column has changed type or no longer exists';
		ELSIF check_rows > 0 THEN
			expr := CASE d.method
				WHEN 'minhash' THEN '@extschema@.minhash_filtered($1, %2$I, @extschema@.minhash_k(%1$I)) '
					'OPERATOR(@extschema@.=) %1$I, @extschema@.minhash(%2$I, @extschema@.minhash_k(%1$I)) OPERATOR(@extschema@.=) %1$I'
				WHEN 'shingleset' THEN '@extschema@.shingle_set_filtered($1, %2$I) OPERATOR(@extschema@.=) %1$I, '
					'@extschema@.shingle_set(%2$I) OPERATOR(@extschema@.=) %1$I'
				ELSE '@extschema@.simhash_filtered($1, %2$I) OPERATOR(@extschema@.=) %1$I, '
					'@extschema@.simhash(%2$I) OPERATOR(@extschema@.=) %1$I' END;
			EXECUTE format('SELECT count(*), count(*) FILTER (WHERE f), count(*) FILTER (WHERE p) FROM ('
				'SELECT ' || expr || ' FROM %3$s WHERE %1$I IS NOT NULL AND %2$I IS NOT NULL LIMIT $2) s(f, p)',
				d.column_name, d.source_column, rel)
				INTO checked, same_filter, same_plain USING d.filter, check_rows;
			IF d.filter IS NULL THEN
				same_filter := same_plain;
			END IF;
			column_check := CASE WHEN checked = 0 THEN 'no rows to check'
				WHEN same_filter = checked THEN format('%s rows checked: computed as decided', checked)
				WHEN d.filter IS NOT NULL AND same_plain = checked THEN
					format('%s rows checked: computed without the filter', checked)
				WHEN d.filter IS NULL THEN
					format('%s rows checked, %s differ: computed with a filter or other parameters', checked, checked - same_plain)
				ELSE format('%s rows checked, %s differ: computed with another filter or other parameters',
					checked, checked - same_filter) END;
		END IF;
		RETURN NEXT;
	END LOOP;
END
$$;
COMMENT ON FUNCTION @extschema@.nddup_decision(regclass, name, integer)
	IS 'the decision kept for a table''s column (every column without one), and whether a sample of the column''s rows was computed from its source column with the decided filter';
