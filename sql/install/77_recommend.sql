-- nddup install script, part 7.7: a threshold chosen from the data
-- (docs/quality.md, "Choosing a threshold").
--
-- nddup_recommend_threshold() looks at a seeded sample of a table's rows, finds
-- every pair of a sampled row with any row of the table whose resemblance is
-- at least 0.1 (min-hash estimate or exact shingle-set Jaccard; for simhash64
-- columns every pair within 20 bits), and returns the threshold (radius) at the
-- valley between the background mode of that distribution and its
-- near-duplicate mode, with the histogram it read.  The valley is the mode
-- method of Prewitt and Mendelsohn ("The analysis of cell images", Ann. N. Y.
-- Acad. Sci. 128, 1966; Glasbey, "An analysis of histogram-based thresholding
-- algorithms", CVGIP 55(6), 1993, section 2, "minimum" method) on the
-- logarithm of the pair counts: the background of unrelated pairs falls by
-- orders of magnitude as resemblance grows, so its end is the first local
-- minimum of the smoothed log histogram, scanned from the background side
-- (a fall within a bin's standard error does not count).
-- The same sample and seed give the same answer.  The inner pair searches'
-- warnings are not shown (client_min_messages = error while it runs): a
-- radius of 20 bits is unsafe by design there, it samples the background.

CREATE FUNCTION @extschema@.nddup_recommend_threshold(rel regclass, id_column name, column_name name,
		sample_size integer DEFAULT 10000, seed integer DEFAULT 0)
	RETURNS TABLE (threshold float8, radius integer, valley_found boolean,
		background_mode float8, valley float8, duplicate_mode float8,
		sampled_rows bigint, table_rows bigint, candidate_pairs bigint, flagged_pairs bigint,
		bin_lower float8[], bin_pairs bigint[], note text)
	LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = error
AS $$
#variable_conflict use_variable
DECLARE
	low_resemblance CONSTANT float8 := 0.1;		-- pairs below are not sampled
	scan_from CONSTANT float8 := 0.2;	-- the scan for the valley starts here (below it: only a clear dip)
	scan_to CONSTANT float8 := 0.9;		-- no valley when none below this
	clamp_high CONSTANT float8 := 0.6;	-- the highest threshold recommended
	max_distance CONSTANT integer := 20;	-- simhash: pairs within 20 bits
	radius_from CONSTANT integer := 16;	-- simhash: the largest radius recommended
	radius_to CONSTANT integer := 2;	-- simhash: no valley when none above this
	min_pairs CONSTANT integer := 50;	-- fewer sampled pairs: no evidence
	arg_no integer;
	col name;
	col_type oid;
	base_type oid;
	expected text;
	kind text;					-- minhash, text, shingleset, simhash64
	value_expr text;
	k integer;
	width float8;				-- bin width (resemblance) or 1 (bits)
	cut bigint;					-- the sample: rows whose hash of the id is <= cut
	all_query text;
	sample_query text;
	pairs_sql text;
	fine integer;				-- exact values per unit
	fine_value integer[];
	fine_pairs bigint[];
	counts bigint[];
	smoothed float8[];
	nbins integer;
	first_bin integer;
	i integer;
	j integer;
	pick integer;
	low_pick integer;			-- a valley below scan_from
	below boolean := false;
	s float8;
	wsum float8;
	w2sum float8;
	se float8;
	w float8;
	default_threshold float8;
BEGIN
	-- the table and its columns, checked before any row is read; a domain counts as its base type
	IF (SELECT c.relkind NOT IN ('r', 'p', 'v', 'm', 'f') FROM pg_class c WHERE c.oid = rel) THEN
		RAISE EXCEPTION '"%" is not a table, view, materialized view or foreign table', rel
			USING ERRCODE = '42809';
	ELSIF NOT EXISTS (SELECT FROM pg_class c WHERE c.oid = rel) THEN
		RAISE EXCEPTION 'relation with OID % does not exist', rel::oid USING ERRCODE = '42P01';
	END IF;
	FOR arg_no IN 1 .. 2 LOOP
		col := CASE arg_no WHEN 1 THEN id_column ELSE column_name END;
		SELECT a.atttypid, coalesce(nullif(t.typbasetype, 0), a.atttypid) INTO col_type, base_type
			FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
			WHERE a.attrelid = rel AND a.attname = col AND a.attnum > 0 AND NOT a.attisdropped;
		IF col_type IS NULL THEN
			RAISE EXCEPTION 'column "%" of relation "%" does not exist', col, rel USING ERRCODE = '42703';
		END IF;
		WHILE (SELECT t.typbasetype <> 0 FROM pg_type t WHERE t.oid = base_type) LOOP	-- a domain over a domain
			SELECT t.typbasetype INTO base_type FROM pg_type t WHERE t.oid = base_type;
		END LOOP;
		IF arg_no = 1 THEN
			IF base_type NOT IN ('int2'::regtype, 'int4'::regtype, 'int8'::regtype) THEN
				expected := 'smallint, integer or bigint';
			END IF;
		ELSIF base_type = '@extschema@.minhash_sketch'::regtype THEN
			kind := 'minhash';
		ELSIF base_type IN ('text'::regtype, 'varchar'::regtype, 'bpchar'::regtype) THEN
			kind := 'text';
		ELSIF base_type = '@extschema@.shingleset'::regtype THEN
			kind := 'shingleset';
		ELSIF base_type = '@extschema@.simhash64'::regtype THEN
			kind := 'simhash64';
		ELSE
			expected := 'minhash_sketch, shingleset, simhash64 or text';
		END IF;
		IF expected IS NOT NULL THEN
			RAISE EXCEPTION 'column "%" of relation "%" has type %, expected %',
					col, rel, format_type(col_type, NULL), expected
				USING ERRCODE = '42804',
					HINT = CASE WHEN arg_no = 1 THEN
						'The id column must be an integer column (or a domain over one).'
					ELSE 'Pass the column of min-hash sketches, shingle sets, simhash fingerprints or the text itself.' END;
		END IF;
	END LOOP;
	IF sample_size < 10 THEN
		RAISE EXCEPTION 'sample size % is out of range', sample_size
			USING ERRCODE = '22023', HINT = 'Sample at least 10 rows (10,000 by default).';
	END IF;
	default_threshold := coalesce(nullif(current_setting('nddup.similarity_threshold', true), '')::float8, 0.3);

	-- the rows: the sample is the sample_size rows with the smallest seeded hash of their id
	value_expr := CASE kind WHEN 'text' THEN format('@extschema@.minhash(%I)', column_name)
		ELSE quote_ident(column_name) END;
	all_query := format('SELECT %I::bigint, %s FROM %s WHERE %I IS NOT NULL AND %I IS NOT NULL',
		id_column, value_expr, rel, id_column, column_name);
	EXECUTE format('SELECT count(*), max(h) FROM (SELECT pg_catalog.hashint8extended(%I::bigint, $1) AS h '
		'FROM %s WHERE %I IS NOT NULL AND %I IS NOT NULL ORDER BY 1 LIMIT $2) s',
		id_column, rel, id_column, column_name)
		INTO sampled_rows, cut USING seed::bigint, sample_size;
	EXECUTE format('SELECT count(*) FROM %s WHERE %I IS NOT NULL AND %I IS NOT NULL',
		rel, id_column, column_name) INTO table_rows;
	IF kind = 'minhash' THEN
		EXECUTE format('SELECT @extschema@.minhash_k(%I) FROM %s WHERE %I IS NOT NULL LIMIT 1',
			column_name, rel, column_name) INTO k;
	ELSIF kind = 'text' THEN
		k := 128;
	END IF;
	-- min-hash estimates are multiples of 1/k: bins of a whole number of steps (about 0.02)
	width := CASE WHEN kind = 'simhash64' THEN 1
		WHEN k IS NOT NULL THEN greatest(1, round(0.02 * k)) / k::float8 ELSE 0.02 END;

	-- the pairs: of the sample with itself when it is the table, else of the sample with the table
	-- (a pair of two sampled rows is kept once: from its smaller id)
	IF sampled_rows = table_rows THEN
		pairs_sql := format(CASE kind WHEN 'simhash64' THEN
				'SELECT distance::float8 FROM @extschema@.hamming_pairs(%L, %s)'
			WHEN 'shingleset' THEN 'SELECT similarity FROM @extschema@.shingleset_pairs(%L, %s)'
			ELSE 'SELECT resemblance FROM @extschema@.minhash_pairs(%L, %s)' END,
			all_query, CASE WHEN kind = 'simhash64' THEN max_distance::float8 ELSE low_resemblance END);
	ELSE
		sample_query := all_query || format(' AND pg_catalog.hashint8extended(%I::bigint, %s) <= %s',
			id_column, seed, cut);
		pairs_sql := format(CASE kind WHEN 'simhash64' THEN
				'SELECT distance::float8 FROM @extschema@.hamming_join(%L, %L, %s)'
			WHEN 'shingleset' THEN 'SELECT similarity FROM @extschema@.shingleset_join(%L, %L, %s)'
			ELSE 'SELECT resemblance FROM @extschema@.minhash_join(%L, %L, %s)' END,
			sample_query, all_query,
			CASE WHEN kind = 'simhash64' THEN max_distance::float8 ELSE low_resemblance END)
			|| format(' WHERE id_a <> id_b AND (id_a < id_b OR pg_catalog.hashint8extended(id_b, %s) > %s)',
				seed, cut);
	END IF;

	-- the pairs, counted once by their exact value (a multiple of 1/k for min-hash, of 0.001
	-- for shingle sets, whole bits for simhash), then by bins of `width` from the first whole
	-- bin above 0.1
	fine := CASE WHEN kind = 'simhash64' THEN 1 WHEN k IS NOT NULL THEN k ELSE 1000 END;
	EXECUTE format('SELECT array_agg(f ORDER BY f), array_agg(n ORDER BY f) FROM ('
		'SELECT floor(v * $1 + 1e-9)::integer AS f, count(*) AS n FROM (%s) p(v) GROUP BY 1) h', pairs_sql)
		INTO fine_value, fine_pairs USING fine;
	first_bin := CASE WHEN kind = 'simhash64' THEN 0 ELSE ceil(low_resemblance / width - 1e-9)::integer END;
	nbins := CASE WHEN kind = 'simhash64' THEN max_distance + 1
		ELSE floor(1 / width + 1e-9)::integer - first_bin + 1 END;
	SELECT array_agg(coalesce(h.n, 0) ORDER BY b.b), coalesce(sum(h.n), 0)::bigint INTO counts, candidate_pairs
		FROM generate_series(0, nbins - 1) b(b)
		LEFT JOIN (SELECT floor(f::float8 / fine / width + 1e-9)::integer - first_bin AS b, sum(n) AS n
			FROM unnest(fine_value, fine_pairs) u(f, n) GROUP BY 1) h ON h.b = b.b;
	bin_pairs := counts;
	SELECT array_agg(round(((first_bin + b) * width)::numeric, 10)::float8 ORDER BY b)
		INTO bin_lower FROM generate_series(0, nbins - 1) b;

	-- log(1 + count), smoothed by a Gaussian of one bin (cut at three), edges repeated; the
	-- standard error of a smoothed value: a count n has sd(log n) ~ 1 / sqrt(n) (Poisson), and
	-- the smoothing scales it by sqrt(sum w^2) / sum w (0.53)
	-- (simhash64: not smoothed, each bin is one distance, and the background doubles per bit)
	smoothed := array_fill(0::float8, ARRAY[nbins]);
	FOR i IN 1 .. nbins LOOP
		IF kind = 'simhash64' THEN
			smoothed[i] := ln(1 + counts[i]);
			CONTINUE;
		END IF;
		s := 0;
		wsum := 0;
		w2sum := 0;
		FOR j IN -3 .. 3 LOOP
			w := exp(-0.5 * j * j);
			s := s + w * ln(1 + counts[least(nbins, greatest(1, i + j))]);
			wsum := wsum + w;
			w2sum := w2sum + w * w;
		END LOOP;
		smoothed[i] := s / wsum;
	END LOOP;

	-- the valley: scanning from the background side, the first bin that is not above either
	-- neighbour (resemblance: by more than its standard error, a fall within the noise is not
	-- a fall); the first bin scanned is only compared with the next one
	IF kind = 'simhash64' THEN
		-- (the first distance, scanning down, at which the count stops falling: the
		-- background's fall ends there)
		FOR i IN REVERSE radius_from + 1 .. radius_to + 2 LOOP		-- bin i holds distance i - 1
			IF smoothed[i] <= smoothed[i - 1] AND (i = radius_from + 1 OR smoothed[i] <= smoothed[i + 1]) THEN
				pick := i;
				EXIT;
			END IF;
		END LOOP;
	ELSE
		FOR i IN 1 .. nbins - 1 LOOP
			CONTINUE WHEN bin_lower[i] < scan_from - 1e-9;
			EXIT WHEN bin_lower[i] + width > scan_to + 1e-9;
			se := sqrt(w2sum) / wsum / sqrt(1 + counts[i]);
			IF smoothed[i] <= smoothed[i + 1] + se AND (bin_lower[i] - width < scan_from - 1e-9
					OR smoothed[i] <= smoothed[i - 1] + se) THEN
				pick := i;
				EXIT;
			END IF;
		END LOOP;
		-- no background above scan_from (the counts rise from its first bin on): a valley below it
		-- when the data shows one, the lowest smoothed bin after the first into which the counts
		-- fall and out of which they rise (to the first bin scanned) by more than its standard
		-- error (short texts whose background ends at 0.12-0.18); else the first bin scanned
		IF pick IS NOT NULL AND bin_lower[pick] - width < scan_from - 1e-9 AND pick > 2 THEN
			SELECT b INTO low_pick FROM generate_series(2, pick - 1) b ORDER BY smoothed[b], b LIMIT 1;
			se := sqrt(w2sum) / wsum / sqrt(1 + counts[low_pick]);
			IF (SELECT max(smoothed[b]) FROM generate_series(1, low_pick - 1) b) > smoothed[low_pick] + se
					AND smoothed[pick] > smoothed[low_pick] + se THEN
				pick := low_pick;
				below := true;
			END IF;
		END IF;
	END IF;

	valley_found := pick IS NOT NULL AND candidate_pairs >= min_pairs;
	IF kind = 'simhash64' THEN
		IF valley_found THEN
			valley := pick - 1;
			radius := pick - 1;
			SELECT b - 1 INTO background_mode FROM generate_series(pick + 1, nbins) b ORDER BY smoothed[b] DESC, b LIMIT 1;
			SELECT b - 1 INTO duplicate_mode FROM generate_series(1, pick - 1) b ORDER BY smoothed[b] DESC, b LIMIT 1;
			SELECT coalesce(sum(n), 0)::bigint INTO flagged_pairs FROM unnest(fine_value, fine_pairs) u(f, n)
				WHERE f <= radius;
			note := format('the radius at the end of the background: pairs within %s bits', radius);
		ELSE
			radius := 3;
			note := CASE WHEN candidate_pairs < min_pairs THEN
					format('only %s pairs within %s bits in the sample: no evidence; radius 3 is safe at any size, verify the pairs to use a larger one',
						candidate_pairs, max_distance)
				ELSE 'no valley between the background and a near-duplicate mode: radius 3 is safe at any size; verify the pairs to use a larger one' END;
		END IF;
		threshold := NULL;
	ELSE
		IF valley_found THEN
			valley := round((bin_lower[pick] + width / 2)::numeric, 4)::float8;
			threshold := least(valley, clamp_high);
			SELECT bin_lower[b] + width / 2 INTO background_mode FROM generate_series(1, pick) b
				ORDER BY smoothed[b] DESC, b LIMIT 1;
			SELECT bin_lower[b] + width / 2 INTO duplicate_mode FROM generate_series(pick + 1, nbins) b
				ORDER BY smoothed[b] DESC, b LIMIT 1;
			note := CASE WHEN valley > clamp_high THEN
					format('the valley at %s is above %s: the highest threshold recommended', valley, clamp_high)
				WHEN below THEN format('the valley below %s between the background and the near-duplicate mode', scan_from)
				WHEN bin_lower[pick] - width < scan_from - 1e-9 THEN
					format('no background above %s: the lowest threshold recommended', scan_from)
				ELSE 'the valley between the background and the near-duplicate mode' END;
		ELSE
			threshold := default_threshold;
			note := CASE WHEN candidate_pairs < min_pairs THEN
					format('only %s pairs above %s in the sample: no evidence; nddup.similarity_threshold kept',
						candidate_pairs, low_resemblance)
				ELSE 'no valley between the background and a near-duplicate mode: nddup.similarity_threshold kept' END;
		END IF;
		SELECT coalesce(sum(n), 0)::bigint INTO flagged_pairs FROM unnest(fine_value, fine_pairs) u(f, n)
			WHERE f::float8 / fine >= threshold - 1e-9;
		background_mode := round(background_mode::numeric, 4)::float8;
		duplicate_mode := round(duplicate_mode::numeric, 4)::float8;
		radius := NULL;
	END IF;
	RETURN NEXT;
END
$$;
COMMENT ON FUNCTION @extschema@.nddup_recommend_threshold(regclass, name, name, integer, integer)
	IS 'the resemblance threshold (simhash64: the radius) at the valley between the background and the near-duplicate mode of a seeded sample''s pairs, with the histogram it read';
