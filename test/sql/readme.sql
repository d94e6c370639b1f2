--
-- The README's five-minute tour, statement by statement, so that the
-- README stays true (keep the two in step).
--

-- what the fingerprint sees: normalized text and tokens
SELECT normalize_text('<p>The <b>Quick</b> brown&nbsp;fox!</p>');   -- the quick brown fox
SELECT tokens('東京abc 123');                                        -- {東,京,abc,123}

-- fingerprints: equal for formatting variants, close for near-duplicates
SELECT simhash('<p>THE QUICK brown fox</p> jumps over the lazy dog!')
     = simhash('The quick brown fox jumps over the lazy dog');      -- true

CREATE TABLE docs (id bigserial PRIMARY KEY, body text NOT NULL,
                   fp simhash64 GENERATED ALWAYS AS (simhash(body)) STORED);
INSERT INTO docs (body) VALUES
  ('Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore.'),
  ('Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore!!'),
  ('Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt. Posted today.'),
  ('Something else entirely, about databases and indexes.');

-- exact Hamming-radius search, served by the hamming index (radius = a query argument)
CREATE INDEX ON docs USING hamming (fp);
SELECT id, fp <-> (SELECT fp FROM docs WHERE id = 1) AS distance
FROM docs WHERE within(fp, (SELECT fp FROM docs WHERE id = 1), 12);
SELECT id FROM docs WHERE fp <@ ball((SELECT fp FROM docs WHERE id = 1), 12);
SELECT * FROM hamming_nearest('docs', 'id', 'fp', (SELECT fp FROM docs WHERE id = 4), 2);

-- every near-duplicate pair and the clusters, with the earliest document as the original
SELECT * FROM hamming_pairs('docs', 'id', 'fp', 12);
SELECT * FROM hamming_clusters('SELECT id, fp FROM docs', 12) ORDER BY id;

-- resemblance: exact shingle sets and min-hash sketches
SELECT jaccard(shingle_set(a.body), shingle_set(b.body)),
       jaccard(minhash(a.body), minhash(b.body))
FROM docs a, docs b WHERE a.id = 1 AND b.id = 3;

-- a blog table that marks copies at insert time (see docs/trigger.md)
CREATE TABLE posts (id bigserial PRIMARY KEY, body text NOT NULL,
                    fp simhash64 GENERATED ALWAYS AS (simhash(body)) STORED, duplicate_of bigint);
CREATE INDEX ON posts USING hamming (fp);
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON posts FOR EACH ROW
    EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'source=body', 'radius=12');
INSERT INTO posts (body) SELECT body FROM docs ORDER BY id;
SELECT id, duplicate_of FROM posts ORDER BY id;                     -- 2 and 3 point at 1

DROP TABLE docs, posts;
