/*-------------------------------------------------------------------------
 *
 * trigger_lock.c
 *	  The advisory locks that serialize the judgement of near-duplicates:
 *	  pigeonhole block keys of a fingerprint (method=simhash) or band keys of
 *	  a sketch (method=minhash), chosen so that any two near-duplicates share
 *	  a key (docs/trigger.md#concurrency).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "trigger.h"

#include "common/hashfn.h"
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

/* Lock key of the sketches of documents without shingles (method=minhash). */
#define NDDUP_EMPTY_SKETCH_KEY	0x454D5054	/* "EMPT" */

/* qsort comparator of lock keys. */
static int
dedup_key_cmp(const void *a, const void *b)
{
	uint32		x = *(const uint32 *) a;
	uint32		y = *(const uint32 *) b;

	return (x > y) - (x < y);
}

/*
 * Lock key of block b of fp (radius + 1 blocks of consecutive bits, the
 * first 64 mod (radius + 1) blocks one bit longer): the block number in the
 * top 6 bits and the block's value below when it fits in 26 bits (radius
 * >= 2); a hash of both otherwise.  Equal blocks give equal keys; unequal
 * blocks rarely do, which costs only a needless wait.
 */
static uint32
dedup_block_key(uint64 fp, int radius, int b)
{
	int			nblocks = radius + 1;
	int			start = 0;
	int			len;
	uint64		value;

	for (int i = 0; i < b; i++)
		start += 64 / nblocks + (i < 64 % nblocks ? 1 : 0);
	len = 64 / nblocks + (b < 64 % nblocks ? 1 : 0);
	value = (len == 64) ? fp : (fp >> start) & ((UINT64CONST(1) << len) - 1);
	if (len <= 26)
		return ((uint32) b << 26) | (uint32) value;
	return hash_combine(hash_combine(hash_bytes_uint32((uint32) value),
									 hash_bytes_uint32((uint32) (value >> 32))),
						(uint32) b);
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

/*
 * Take the transaction-scoped advisory locks that serialize the judgement
 * of near-duplicate signatures: the table key in share mode, then every
 * pigeonhole key of every signature in exclusive mode, in ascending order
 * (so that two triggers never wait for each other in a cycle).  With a
 * scope column each key is mixed with the hash of the signature's scope
 * value, so rows of different scopes do not wait for each other.  lock=table
 * takes the table key in exclusive mode instead, which conflicts with
 * everything the block mode takes; so does a transaction that has taken
 * NDDUP_LOCK_ESCALATE block keys.
 */
void
nddup_dedup_lock(DedupCacheEntry *entry, const Datum *sigs, const uint32 *scopes, int nsigs)
{
	const DedupConfig *cfg = &entry->config;
	LOCKTAG		tag;
	uint32	   *keys;
	int			nkeys = 0;

	if (entry->lock_lxid != NDDUP_MY_LXID)
	{
		entry->lock_lxid = NDDUP_MY_LXID;
		entry->nkeys = 0;
	}
	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, cfg->relid, 0, NDDUP_LOCK_TABLE);
	if (cfg->lock == NDDUP_TRIGGER_LOCK_TABLE || entry->nkeys >= NDDUP_LOCK_ESCALATE)
	{
		(void) LockAcquire(&tag, ExclusiveLock, false, false);
		return;
	}
	(void) LockAcquire(&tag, ShareLock, false, false);

	keys = palloc(sizeof(uint32) * nsigs *
				  (cfg->method == NDDUP_TRIGGER_SIMHASH ? cfg->radius + 1 : NDDUP_MINHASH_MAX_K));
	for (int f = 0; f < nsigs; f++)
	{
		int			first = nkeys;

		if (cfg->method == NDDUP_TRIGGER_MINHASH)
			nkeys += dedup_band_keys(cfg, sigs[f], keys + nkeys);
		else
			for (int b = 0; b <= cfg->radius; b++)
				keys[nkeys++] = dedup_block_key(DatumGetSimhash64(sigs[f]), cfg->radius, b);
		/* rows of different scopes are never judged against each other */
		if (cfg->scope_attno)
			for (int i = first; i < nkeys; i++)
				keys[i] = hash_combine(keys[i], scopes[f]);
	}
	qsort(keys, nkeys, sizeof(uint32), dedup_key_cmp);
	for (int i = 0; i < nkeys; i++)
	{
		if (i > 0 && keys[i] == keys[i - 1])
			continue;
		SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, cfg->relid, keys[i], NDDUP_LOCK_BLOCK);
		if (LockAcquire(&tag, ExclusiveLock, false, false) == LOCKACQUIRE_OK)
			entry->nkeys++;
	}
	pfree(keys);
}
