/*-------------------------------------------------------------------------
 *
 * spgist_hamming.c
 *	  SP-GiST operator class simhash64_spgist_ops: a radix trie over the
 *	  nibbles of a 64-bit fingerprint, answering nearest-neighbour search
 *	  (ORDER BY fp <-> q) and Hamming-ball search (fp <@ ball(q, k)).
 *
 * Tree shape.  Bits are consumed four at a time, most significant first;
 * "level" counts the nibbles known at an inner tuple.  An inner tuple holds
 * an optional prefix (a run of nibbles shared by everything below it,
 * encoded in an int8, see PrefixEncode) and one labelled node per nibble
 * value present at the position after the prefix.  Labels:
 *
 *	 0..15	the nibble at that position (descending consumes prefix + 1
 *			nibbles);
 *	 -1		no nibble left: the value is fully known (level >= 16), used for
 *			piles of identical fingerprints;
 *	 -2		a "dummy" node made when an allTheSame tuple is split: its
 *			subtree starts right after the prefix (consumes the prefix only).
 *
 * Leaf tuples hold the whole fingerprint, so leaf tests and distances are
 * exact (no recheck) and the opclass can return data (index-only scans).
 *
 * Search.  Every node's lower bound is the number of mismatching bits
 * between the query and the bits known on the path to it; the ordered scan
 * (a best-first search driven by the core's pairing heap) therefore returns
 * rows in exact Hamming order, and a ball search prunes every node whose
 * lower bound exceeds the radius.
 *
 * allTheSame tuples (the core makes one when picksplit puts every tuple into
 * one node) have several nodes with one label; choose descends into any of
 * them and, for a value with another nibble, splits the tuple with a -2
 * node (spgAddNode is not allowed on allTheSame tuples).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/spgist.h"
#include "access/stratnum.h"
#include "catalog/pg_type.h"

#include "nddup.h"

/* strategy numbers of simhash64_spgist_ops */
#define SPGHAM_BALL_STRATEGY		1	/* simhash64 <@ hamming_ball */
#define SPGHAM_EQUAL_STRATEGY		3	/* simhash64 = simhash64 */
#define SPGHAM_DISTANCE_STRATEGY	15	/* simhash64 <-> simhash64 */

/* nibbles in a fingerprint */
#define SPGHAM_NIBBLES				16

/* special node labels */
#define SPGHAM_LABEL_END			(-1)
#define SPGHAM_LABEL_DUMMY			(-2)

PG_FUNCTION_INFO_V1(simhash64_spg_config);
PG_FUNCTION_INFO_V1(simhash64_spg_choose);
PG_FUNCTION_INFO_V1(simhash64_spg_picksplit);
PG_FUNCTION_INFO_V1(simhash64_spg_inner_consistent);
PG_FUNCTION_INFO_V1(simhash64_spg_leaf_consistent);

/* Mask of the first nlevels nibbles (the known bits at that level). */
static inline uint64
KnownMask(int nlevels)
{
	if (nlevels <= 0)
		return 0;
	if (nlevels >= SPGHAM_NIBBLES)
		return ~UINT64CONST(0);
	return ~UINT64CONST(0) << (64 - 4 * nlevels);
}

/* The nibble of value at position pos (0 = most significant). */
static inline int
NibbleAt(uint64 value, int pos)
{
	return (int) ((value >> (60 - 4 * pos)) & 0xF);
}

/*
 * Encode the plen nibbles of value starting at position level as a prefix
 * datum: the nibbles right-aligned, shifted left by 4, with plen in the low
 * 4 bits.  plen is 1..15, so the encoding fits in 64 bits.
 */
static Datum
PrefixEncode(uint64 value, int level, int plen)
{
	uint64		nibbles;

	Assert(plen >= 1 && plen <= SPGHAM_NIBBLES - 1);
	Assert(level + plen <= SPGHAM_NIBBLES);
	nibbles = (value >> (64 - 4 * (level + plen))) &
		((UINT64CONST(1) << (4 * plen)) - 1);
	return Int64GetDatum((int64) ((nibbles << 4) | (uint64) plen));
}

/* Length in nibbles of an encoded prefix. */
static inline int
PrefixLength(Datum prefix)
{
	return (int) ((uint64) DatumGetInt64(prefix) & 0xF);
}

/* The prefix's nibbles placed at their positions (level onwards) in a value. */
static inline uint64
PrefixBits(Datum prefix, int level)
{
	uint64		enc = (uint64) DatumGetInt64(prefix);
	int			plen = (int) (enc & 0xF);

	return (enc >> 4) << (64 - 4 * (level + plen));
}

/* Binary search of a sorted label array; *pos gets the match or insert point. */
static bool
SearchLabel(Datum *labels, int nlabels, int16 label, int *pos)
{
	int			lo = 0;
	int			hi = nlabels;

	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;
		int16		m = DatumGetInt16(labels[mid]);

		if (label < m)
			hi = mid;
		else if (label > m)
			lo = mid + 1;
		else
		{
			*pos = mid;
			return true;
		}
	}
	*pos = lo;
	return false;
}

/* SP-GiST config: int8 prefixes, int2 labels, whole values in the leaves. */
Datum
simhash64_spg_config(PG_FUNCTION_ARGS)
{
	spgConfigIn *cfgin = (spgConfigIn *) PG_GETARG_POINTER(0);
	spgConfigOut *cfg = (spgConfigOut *) PG_GETARG_POINTER(1);

	cfg->prefixType = INT8OID;
	cfg->labelType = INT2OID;
	cfg->leafType = cfgin->attType;
	cfg->canReturnData = true;
	cfg->longValuesOK = false;
	PG_RETURN_VOID();
}

/* SP-GiST choose: follow the prefix and the next nibble, or restructure. */
Datum
simhash64_spg_choose(PG_FUNCTION_ARGS)
{
	spgChooseIn *in = (spgChooseIn *) PG_GETARG_POINTER(0);
	spgChooseOut *out = (spgChooseOut *) PG_GETARG_POINTER(1);
	uint64		value = DatumGetSimhash64(in->datum);
	int			level = in->level;
	int			plen = 0;
	int16		label;
	int			pos;

	if (in->hasPrefix)
	{
		uint64		mask;
		uint64		diff;

		plen = PrefixLength(in->prefixDatum);
		mask = KnownMask(level + plen) & ~KnownMask(level);
		diff = (value ^ PrefixBits(in->prefixDatum, level)) & mask;
		if (diff != 0)
		{
			/* split at the first mismatching nibble m of the prefix */
			int			m = __builtin_clzll(diff) / 4 - level;
			uint64		pvalue = PrefixBits(in->prefixDatum, level);

			out->resultType = spgSplitTuple;
			out->result.splitTuple.prefixHasPrefix = (m > 0);
			if (m > 0)
				out->result.splitTuple.prefixPrefixDatum =
					PrefixEncode(pvalue, level, m);
			out->result.splitTuple.prefixNNodes = 1;
			out->result.splitTuple.prefixNodeLabels =
				(Datum *) palloc(sizeof(Datum));
			out->result.splitTuple.prefixNodeLabels[0] =
				Int16GetDatum((int16) NibbleAt(pvalue, level + m));
			out->result.splitTuple.childNodeN = 0;
			out->result.splitTuple.postfixHasPrefix = (plen - m - 1 > 0);
			if (plen - m - 1 > 0)
				out->result.splitTuple.postfixPrefixDatum =
					PrefixEncode(pvalue, level + m + 1, plen - m - 1);
			PG_RETURN_VOID();
		}
	}

	label = (level + plen < SPGHAM_NIBBLES) ?
		(int16) NibbleAt(value, level + plen) : SPGHAM_LABEL_END;

	if (SearchLabel(in->nodeLabels, in->nNodes, label, &pos))
	{
		/* for allTheSame tuples the core picks a node at random */
		out->resultType = spgMatchNode;
		out->result.matchNode.nodeN = pos;
		out->result.matchNode.levelAdd = plen + (label >= 0 ? 1 : 0);
		out->result.matchNode.restDatum = in->datum;
	}
	else if (in->allTheSame)
	{
		/*
		 * spgAddNode is not allowed here: move the whole tuple one level
		 * down, below a dummy node of a new upper tuple with the same prefix,
		 * to which choose (called again) then adds the new label.
		 */
		out->resultType = spgSplitTuple;
		out->result.splitTuple.prefixHasPrefix = in->hasPrefix;
		out->result.splitTuple.prefixPrefixDatum = in->prefixDatum;
		out->result.splitTuple.prefixNNodes = 1;
		out->result.splitTuple.prefixNodeLabels =
			(Datum *) palloc(sizeof(Datum));
		out->result.splitTuple.prefixNodeLabels[0] =
			Int16GetDatum(SPGHAM_LABEL_DUMMY);
		out->result.splitTuple.childNodeN = 0;
		out->result.splitTuple.postfixHasPrefix = false;
	}
	else
	{
		out->resultType = spgAddNode;
		out->result.addNode.nodeLabel = Int16GetDatum(label);
		out->result.addNode.nodeN = pos;
	}
	PG_RETURN_VOID();
}

/* qsort comparator: order tuple indexes by their label */
static int
CompareLabelOf(const void *a, const void *b, void *arg)
{
	const int16 *labels = (const int16 *) arg;
	int16		la = labels[*(const int *) a];
	int16		lb = labels[*(const int *) b];

	return (la > lb) - (la < lb);
}

/*
 * SP-GiST picksplit: the longest common run of nibbles becomes the prefix
 * (at most up to nibble 14, so that the prefix fits its encoding) and the
 * next nibble the node label.
 */
Datum
simhash64_spg_picksplit(PG_FUNCTION_ARGS)
{
	spgPickSplitIn *in = (spgPickSplitIn *) PG_GETARG_POINTER(0);
	spgPickSplitOut *out = (spgPickSplitOut *) PG_GETARG_POINTER(1);
	int			level = in->level;
	int			n = in->nTuples;
	int			plen = 0;
	int16	   *labels;
	int		   *order;

	if (level < SPGHAM_NIBBLES)
	{
		uint64		first = DatumGetSimhash64(in->datums[0]);
		uint64		diff = 0;
		int			maxlen = SPGHAM_NIBBLES - 1 - level;

		for (int i = 1; i < n; i++)
			diff |= first ^ DatumGetSimhash64(in->datums[i]);
		diff &= ~KnownMask(level);
		plen = (diff == 0) ? maxlen : __builtin_clzll(diff) / 4 - level;
		plen = Min(plen, maxlen);
	}

	out->hasPrefix = (plen > 0);
	if (plen > 0)
		out->prefixDatum = PrefixEncode(DatumGetSimhash64(in->datums[0]),
										level, plen);

	labels = (int16 *) palloc(sizeof(int16) * n);
	order = (int *) palloc(sizeof(int) * n);
	for (int i = 0; i < n; i++)
	{
		labels[i] = (level + plen < SPGHAM_NIBBLES) ?
			(int16) NibbleAt(DatumGetSimhash64(in->datums[i]), level + plen) :
			SPGHAM_LABEL_END;
		order[i] = i;
	}
	qsort_arg(order, n, sizeof(int), CompareLabelOf, labels);

	out->nNodes = 0;
	out->nodeLabels = (Datum *) palloc(sizeof(Datum) * n);
	out->mapTuplesToNodes = (int *) palloc(sizeof(int) * n);
	out->leafTupleDatums = (Datum *) palloc(sizeof(Datum) * n);
	for (int k = 0; k < n; k++)
	{
		int			i = order[k];

		if (k == 0 || labels[i] != labels[order[k - 1]])
			out->nodeLabels[out->nNodes++] = Int16GetDatum(labels[i]);
		out->mapTuplesToNodes[i] = out->nNodes - 1;
		out->leafTupleDatums[i] = in->datums[i];
	}
	PG_RETURN_VOID();
}

/*
 * Check the scan keys against a node or leaf whose known bits (under mask)
 * are those of value.  With mask = all ones the test is exact.
 */
static inline bool
KeysConsistent(ScanKey keys, int nkeys, uint64 value, uint64 mask)
{
	for (int j = 0; j < nkeys; j++)
	{
		switch (keys[j].sk_strategy)
		{
			case SPGHAM_BALL_STRATEGY:
				{
					HammingBall *ball = (HammingBall *)
						DatumGetPointer(keys[j].sk_argument);

					if (__builtin_popcountll((value ^ ball->center) & mask) >
						ball->radius)
						return false;
					break;
				}
			case SPGHAM_EQUAL_STRATEGY:
				if (((value ^ DatumGetSimhash64(keys[j].sk_argument)) & mask) != 0)
					return false;
				break;
			default:
				elog(ERROR, "unrecognized strategy number: %d",
					 keys[j].sk_strategy);
		}
	}
	return true;
}

/*
 * SP-GiST inner_consistent: visit the nodes whose known bits can still
 * satisfy the keys; each gets the lower bound of its distances.
 */
Datum
simhash64_spg_inner_consistent(PG_FUNCTION_ARGS)
{
	spgInnerConsistentIn *in = (spgInnerConsistentIn *) PG_GETARG_POINTER(0);
	spgInnerConsistentOut *out = (spgInnerConsistentOut *) PG_GETARG_POINTER(1);
	int			level = in->level;
	int			plen = 0;
	uint64		known = DatumGetSimhash64(in->reconstructedValue);
	double	   *distances = NULL;

	Assert((known & ~KnownMask(level)) == 0);
	if (in->hasPrefix)
	{
		plen = PrefixLength(in->prefixDatum);
		known |= PrefixBits(in->prefixDatum, level);
	}

	out->nNodes = 0;
	out->nodeNumbers = (int *) palloc(sizeof(int) * in->nNodes);
	out->levelAdds = (int *) palloc(sizeof(int) * in->nNodes);
	out->reconstructedValues = (Datum *) palloc(sizeof(Datum) * in->nNodes);
	if (in->norderbys > 0)
	{
		out->distances = (double **) palloc(sizeof(double *) * in->nNodes);
		distances = (double *) palloc(sizeof(double) * in->nNodes *
									  in->norderbys);
	}

	for (int i = 0; i < in->nNodes; i++)
	{
		int16		label = DatumGetInt16(in->nodeLabels[i]);
		int			add = plen + (label >= 0 ? 1 : 0);
		uint64		child = known;
		uint64		mask = KnownMask(level + add);

		if (label >= 0)
			child |= (uint64) label << (60 - 4 * (level + plen));

		if (!KeysConsistent(in->scankeys, in->nkeys, child, mask))
			continue;

		out->nodeNumbers[out->nNodes] = i;
		out->levelAdds[out->nNodes] = add;
		out->reconstructedValues[out->nNodes] = Simhash64GetDatum(child);
		if (in->norderbys > 0)
		{
			double	   *d = distances + out->nNodes * in->norderbys;

			for (int j = 0; j < in->norderbys; j++)
			{
				uint64		q = DatumGetSimhash64(in->orderbys[j].sk_argument);

				d[j] = (double) __builtin_popcountll((child ^ q) & mask);
			}
			out->distances[out->nNodes] = d;
		}
		out->nNodes++;
	}
	PG_RETURN_VOID();
}

/* SP-GiST leaf_consistent: exact tests and exact distances. */
Datum
simhash64_spg_leaf_consistent(PG_FUNCTION_ARGS)
{
	spgLeafConsistentIn *in = (spgLeafConsistentIn *) PG_GETARG_POINTER(0);
	spgLeafConsistentOut *out = (spgLeafConsistentOut *) PG_GETARG_POINTER(1);
	uint64		value = DatumGetSimhash64(in->leafDatum);

	out->leafValue = in->leafDatum;
	out->recheck = false;
	out->recheckDistances = false;

	if (!KeysConsistent(in->scankeys, in->nkeys, value, ~UINT64CONST(0)))
		PG_RETURN_BOOL(false);

	if (in->norderbys > 0)
	{
		double	   *d = (double *) palloc(sizeof(double) * in->norderbys);

		for (int j = 0; j < in->norderbys; j++)
			d[j] = (double) nddup_hamming(value,
										  DatumGetSimhash64(in->orderbys[j].sk_argument));
		out->distances = d;
	}
	PG_RETURN_BOOL(true);
}
