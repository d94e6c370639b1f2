/*-------------------------------------------------------------------------
 *
 * trigger_lock.c
 *	  The advisory locks that serialize the judgement of near-duplicates
 *	  (docs/trigger.md#concurrency).
 *
 * method=minhash: band keys of the sketch, chosen so that any two sketches
 * whose estimate reaches the threshold share one; each is locked
 * exclusively.  method=shingleset: likewise the keys of the set's prefix
 * hashes (src/trigger/trigger_shingleset.c).
 *
 * method=simhash: the fingerprint is cut into m blocks and each block b
 * gets a probe radius rho_b, so that any two fingerprints within the
 * radius have some block b whose values are within rho_b of each other
 * (the pigeonhole principle of multi-index hashing, Norouzi, Punjani and
 * Fleet 2012, s.3).  A row locks the keys (b, its own value of block b)
 * exclusively and then *probes* the keys (b, v) of every other value v
 * within rho_b: if another transaction holds one, the row gives up its own
 * keys, waits for that transaction to end and starts again.  Two near
 * rows A and B therefore never pass together: whichever probes later finds
 * the other's key held (each holds its own from before its probe until it
 * commits), unless the other has already committed, and then its fresh
 * snapshot sees it.  Nothing waits while holding this row's keys, so
 * probing does not deadlock.  Long exact blocks (rho = 0, the old scheme
 * of radius + 1 blocks) need no probes but make short keys at large radii
 * (radius 12: 13 blocks of 5 bits, 36 % of unrelated pairs share one); m
 * and the probe radii are chosen to weigh the probes against the share of
 * unrelated pairs that must wait (lock_geometry).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "trigger/trigger.h"

#include "common/hashfn.h"
#include "core/hamming_kernel.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "storage/proc.h"

/*
 * Field 4 of our advisory lock tags.  pg_advisory_xact_lock(bigint) uses 1
 * and pg_advisory_xact_lock(int, int) uses 2, so our keys never collide with
 * a user's advisory locks.  They show in pg_locks as locktype 'advisory',
 * classid = the table's oid, objid = the key, objsubid = 20036 / 20037.
 */
#define NDDUP_LOCK_BLOCK		0x4E44	/* "ND": one pigeonhole block */
#define NDDUP_LOCK_TABLE		0x4E45	/* the whole table */

/*
 * A transaction that has taken this many block keys of one trigger (a bulk
 * load) takes the table key in exclusive mode from then on, so that it does
 * not fill the shared lock table.
 */
#define NDDUP_LOCK_ESCALATE		512

/*
 * Most prefix keys (method=shingleset, src/trigger/trigger_shingleset.c)
 * one row takes; a row with more takes the table key in exclusive mode.
 */
#define NDDUP_LOCK_SET_MAX_KEYS	256

/* Lock key of the sketches of documents without shingles (method=minhash). */
#define NDDUP_EMPTY_SKETCH_KEY	0x454D5054	/* "EMPT" */

/*
 * Weight of the share of unrelated pairs that must wait, against the
 * number of probes per row, when choosing the blocks (a probe is a look-up
 * in the lock table, ~0.2 us; a wait costs a few hundred of them).
 */
#define NDDUP_LOCK_WAIT_WEIGHT	3000.0

/* most blocks, and most probes of a row, that a geometry may have */
#define NDDUP_LOCK_MAX_BLOCKS	16
#define NDDUP_LOCK_MAX_PROBES	4096

/* The blocks of the simhash lock keys for one radius. */
typedef struct LockGeometry
{
	int			radius;			/* -1: not computed */
	int			nblocks;
	int			len[NDDUP_LOCK_MAX_BLOCKS];	/* bits */
	int			start[NDDUP_LOCK_MAX_BLOCKS];	/* lowest bit */
	int			rho[NDDUP_LOCK_MAX_BLOCKS];	/* probe radius */
	int			nprobes;		/* probes of one fingerprint */
} LockGeometry;

/* qsort comparator of lock keys. */
static int
dedup_key_cmp(const void *a, const void *b)
{
	uint32		x = *(const uint32 *) a;
	uint32		y = *(const uint32 *) b;

	return (x > y) - (x < y);
}

/*
 * Choose the blocks for a radius: m blocks of consecutive bits (the first
 * 64 mod m one bit longer), probe radii by multi-index hashing (radius =
 * m d + s: the s + 1 longest blocks at d, the others at d - 1), the m
 * minimizing probes + NDDUP_LOCK_WAIT_WEIGHT * (share of unrelated pairs
 * that share a key or find each other's).  m = radius + 1 gives radius 0
 * everywhere: no probes.
 */
static void
lock_geometry(int radius, LockGeometry *g)
{
	double		best = -1;

	for (int m = 1; m <= Min(radius + 1, NDDUP_LOCK_MAX_BLOCKS); m++)
	{
		LockGeometry c;
		double		share = 0;
		double		probes = 0;
		int			d = radius / m;
		int			s = radius % m;
		int			start = 0;

		c.radius = radius;
		c.nblocks = m;
		for (int b = 0; b < m; b++)
		{
			double		v;

			c.len[b] = 64 / m + (b < 64 % m ? 1 : 0);
			c.start[b] = start;
			start += c.len[b];
			c.rho[b] = (b <= s) ? d : d - 1;
			if (c.rho[b] > 0 && c.len[b] > 26)
				probes = NDDUP_LOCK_MAX_PROBES + 1;		/* cannot enumerate */
			v = nddup_ham_ball_volume(c.len[b], Max(c.rho[b], 0));
			probes += v - 1;
			share += ldexp(v, -c.len[b]);
		}
		if (probes > NDDUP_LOCK_MAX_PROBES)
			continue;
		c.nprobes = (int) probes;
		if (best < 0 || probes + NDDUP_LOCK_WAIT_WEIGHT * share < best)
		{
			best = probes + NDDUP_LOCK_WAIT_WEIGHT * share;
			*g = c;
		}
	}
}

/*
 * Lock key of value v of block b: the block number in the top 6 bits and
 * the value below when it fits in 26 bits; a hash of both otherwise.
 * Equal blocks give equal keys; unequal blocks rarely do, which costs only
 * a needless wait.
 */
static uint32
block_key(const LockGeometry *g, int b, uint64 value)
{
	if (g->len[b] <= 26)
		return ((uint32) b << 26) | (uint32) value;
	return hash_combine(hash_combine(hash_bytes_uint32((uint32) value),
									 hash_bytes_uint32((uint32) (value >> 32))),
						(uint32) b);
}

/* The value of block b of fp. */
static uint64
block_value(const LockGeometry *g, uint64 fp, int b)
{
	return g->len[b] == 64 ? fp :
		(fp >> g->start[b]) & ((UINT64CONST(1) << g->len[b]) - 1);
}

/*
 * Lock keys of a minhash sketch (appended to keys, returns their number):
 * one per band of the pigeonhole banding described in the file header, a
 * hash of the band number and its values.  Sketches of documents without
 * shingles (whose estimate is 1 only with each other) share one key.
 */
static int
dedup_band_keys(const DedupConfig *cfg, Datum sketch, uint32 *keys)
{
	int			k;
	int			bits;
	bool		empty_doc;
	uint32	   *values = nddup_minhash_datum_values(sketch, &k, &bits, &empty_doc);
	int			nbands;
	int			rows;

	if (empty_doc)
	{
		keys[0] = NDDUP_EMPTY_SKETCH_KEY;
		pfree(values);
		return 1;
	}
	nbands = k - nddup_minhash_min_equal(cfg->threshold, k, bits) + 1;
	nbands = Min(Max(nbands, 1), k);
	rows = k / nbands;
	for (int j = 0; j < nbands; j++)
		keys[j] = hash_combine(hash_bytes((const unsigned char *) (values + (size_t) j * rows),
										  sizeof(uint32) * rows),
							   (uint32) j);
	pfree(values);
	return nbands;
}

/* The advisory lock tag of a block or band key of a trigger's table. */
static void
key_tag(LOCKTAG *tag, const DedupConfig *cfg, uint32 key)
{
	SET_LOCKTAG_ADVISORY(*tag, MyDatabaseId, cfg->relid, key, NDDUP_LOCK_BLOCK);
}

/* Lock keys in exclusive mode, in ascending order; counts the new ones. */
static void
lock_keys(DedupCacheEntry *entry, uint32 *keys, int nkeys, bool *acquired)
{
	qsort(keys, nkeys, sizeof(uint32), dedup_key_cmp);
	for (int i = 0; i < nkeys; i++)
	{
		LOCKTAG		tag;

		acquired[i] = false;
		if (i > 0 && keys[i] == keys[i - 1])
			continue;
		key_tag(&tag, &entry->config, keys[i]);
		if (LockAcquire(&tag, ExclusiveLock, false, false) == LOCKACQUIRE_OK)
			entry->nkeys++;
		acquired[i] = true;
	}
}

/*
 * Probe the keys of every value within each block's probe radius of the
 * fingerprints' own values (their own are locked already): returns true
 * and the key when another transaction holds one.
 */
static bool
probe_keys(const DedupConfig *cfg, const LockGeometry *g, const Datum *sigs,
		   const uint32 *scopes, int nsigs, uint32 *busy)
{
	uint32	   *values = NULL;
	long		maxvalues = 0;
	bool		found = false;

	for (int f = 0; f < nsigs && !found; f++)
		for (int b = 0; b < g->nblocks && !found; b++)
		{
			uint64		own = block_value(g, DatumGetSimhash64(sigs[f]), b);
			long		n;

			if (g->rho[b] <= 0)
				continue;
			if (values == NULL)
			{
				for (int i = 0; i < g->nblocks; i++)
					maxvalues = Max(maxvalues,
									(long) nddup_ham_ball_volume(g->len[i], Max(g->rho[i], 0)));
				values = palloc(sizeof(uint32) * maxvalues);
			}
			n = nddup_ham_enumerate((uint32) own, g->len[b], g->rho[b], values, maxvalues);
			for (long i = 0; i < n && !found; i++)
			{
				uint32		key;
				LOCKTAG		tag;
				VirtualTransactionId *holders;
				int			nholders;

				if (values[i] == own)
					continue;
				key = block_key(g, b, values[i]);
				if (cfg->scope_attno)
					key = hash_combine(key, scopes[f]);
				key_tag(&tag, cfg, key);
				holders = GetLockConflicts(&tag, ShareLock, &nholders);
				if (nholders > 0)
				{
					*busy = key;
					found = true;
				}
				pfree(holders);
			}
		}
	if (values)
		pfree(values);
	return found;
}

/*
 * Take the transaction-scoped advisory locks that serialize the judgement
 * of near-duplicate signatures: the table key in share mode, then the keys
 * of every signature in exclusive mode, in ascending order (so that two
 * triggers never wait for each other in a cycle), then (simhash) probe the
 * neighbouring keys, giving the own keys up and waiting whenever one is
 * held (see the file header).  With a scope column each key is mixed with
 * the hash of the signature's scope value, so rows of different scopes do
 * not wait for each other.  lock=table takes the table key in exclusive
 * mode instead, which conflicts with everything the block mode takes; so
 * does a transaction that has taken NDDUP_LOCK_ESCALATE block keys, and a
 * row whose set prefixes need more than NDDUP_LOCK_SET_MAX_KEYS keys.
 */
void
nddup_dedup_lock(DedupCacheEntry *entry, const Datum *sigs, const uint32 *scopes, int nsigs)
{
	const DedupConfig *cfg = &entry->config;
	LOCKTAG		tag;
	uint32	   *keys;
	bool	   *acquired;
	int			nkeys = 0;
	LockGeometry g;

	if (entry->lock_lxid != NDDUP_MY_LXID)
	{
		entry->lock_lxid = NDDUP_MY_LXID;
		entry->nkeys = 0;
	}
	/* a long prefix would fill the lock table: serialize on the table */
	if (cfg->method == NDDUP_TRIGGER_SHINGLESET)
		for (int f = 0; f < nsigs; f++)
			nkeys += nddup_dedup_set_nkeys(cfg, sigs[f]);
	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, cfg->relid, 0, NDDUP_LOCK_TABLE);
	if (cfg->lock == NDDUP_TRIGGER_LOCK_TABLE || entry->nkeys >= NDDUP_LOCK_ESCALATE ||
		nkeys > NDDUP_LOCK_SET_MAX_KEYS)
	{
		(void) LockAcquire(&tag, ExclusiveLock, false, false);
		return;
	}
	(void) LockAcquire(&tag, ShareLock, false, false);

	memset(&g, 0, sizeof(g));
	if (cfg->method == NDDUP_TRIGGER_SIMHASH)
		lock_geometry(cfg->radius, &g);
	if (cfg->method == NDDUP_TRIGGER_SHINGLESET)
	{
		keys = palloc(sizeof(uint32) * Max(nkeys, 1));
		nkeys = 0;
	}
	else
		keys = palloc(sizeof(uint32) * nsigs *
					  (cfg->method == NDDUP_TRIGGER_SIMHASH ? g.nblocks : NDDUP_MINHASH_MAX_K));
	for (int f = 0; f < nsigs; f++)
	{
		int			first = nkeys;

		if (cfg->method == NDDUP_TRIGGER_MINHASH)
			nkeys += dedup_band_keys(cfg, sigs[f], keys + nkeys);
		else if (cfg->method == NDDUP_TRIGGER_SHINGLESET)
			nkeys += nddup_dedup_set_keys(cfg, sigs[f], keys + nkeys);
		else
			for (int b = 0; b < g.nblocks; b++)
				keys[nkeys++] = block_key(&g, b, block_value(&g, DatumGetSimhash64(sigs[f]), b));
		/* rows of different scopes are never judged against each other */
		if (cfg->scope_attno)
			for (int i = first; i < nkeys; i++)
				keys[i] = hash_combine(keys[i], scopes[f]);
	}
	acquired = palloc(sizeof(bool) * nkeys);
	for (;;)
	{
		uint32		busy;
		int64		before = entry->nkeys;

		lock_keys(entry, keys, nkeys, acquired);
		if (cfg->method != NDDUP_TRIGGER_SIMHASH ||
			!probe_keys(cfg, &g, sigs, scopes, nsigs, &busy))
			break;

		/* give this row's keys up, wait for the holder to end, start again */
		for (int i = 0; i < nkeys; i++)
		{
			if (!acquired[i])
				continue;
			key_tag(&tag, cfg, keys[i]);
			LockRelease(&tag, ExclusiveLock, false);
		}
		entry->nkeys = before;
		key_tag(&tag, cfg, busy);
		(void) LockAcquire(&tag, ShareLock, false, false);
		LockRelease(&tag, ShareLock, false);
		CHECK_FOR_INTERRUPTS();
	}
	pfree(acquired);
	pfree(keys);
}
