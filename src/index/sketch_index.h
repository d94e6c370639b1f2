/*-------------------------------------------------------------------------
 *
 * sketch_index.h
 *	  What the sketch query types (src/index/sketch_query.c) and the GIN
 *	  operator classes of the sketch types (src/index/gin_sketch.c) share:
 *	  the stored layouts, the query value, the strategies.
 *
 *-------------------------------------------------------------------------
 */
#ifndef NDDUP_SKETCH_INDEX_H
#define NDDUP_SKETCH_INDEX_H

#include "nddup.h"

/* the operators of src/types that the index must agree with */
extern Datum minhash_in(PG_FUNCTION_ARGS);
extern Datum minhash_out(PG_FUNCTION_ARGS);
extern Datum minhash_similar_op(PG_FUNCTION_ARGS);
extern Datum minhash_similar(PG_FUNCTION_ARGS);
extern Datum shingleset_in(PG_FUNCTION_ARGS);
extern Datum shingleset_out(PG_FUNCTION_ARGS);
extern Datum shingleset_similar(PG_FUNCTION_ARGS);
extern Datum shingleset_containment(PG_FUNCTION_ARGS);
extern Datum shingleset_overlap(PG_FUNCTION_ARGS);

/* The stored layouts (src/core/nddup_core.h, docs/sketches.md) */
typedef NddupMinhash SketchMinhash;
typedef NddupShingleSet SketchSet;

StaticAssertDecl(offsetof(SketchMinhash, data) == 16,
				 "minhash_sketch header is 16 bytes");
StaticAssertDecl(offsetof(SketchSet, items) == 24,
				 "shingleset header is 24 bytes");

/*
 * minhash_query and shingleset_query: a threshold (and, for sets, what it
 * bounds) with the query sketch or set embedded as a 4-byte-header varlena.
 */
typedef struct SketchQuery
{
	int32		vl_len_;
	uint8		kind;			/* NDDUP_QUERY_JACCARD or NDDUP_QUERY_CONTAINMENT */
	uint8		padding[3];		/* always zero */
	float8		threshold;
	char		value[FLEXIBLE_ARRAY_MEMBER];
} SketchQuery;

#define SKETCH_QUERY_HDRSZ	offsetof(SketchQuery, value)
#define QUERY_VALUE(q)		((struct varlena *) (q)->value)

/* strategies of the GIN operator classes (sql/install/75_sketch_index.sql) */
#define STRATEGY_SIMILAR_GUC	1	/* a % b */
#define STRATEGY_QUERY			2	/* a <@ similar_to(q, t), containing(q, t) */
#define STRATEGY_OVERLAP		3	/* a && b */

/* A query argument, detoasted, with its embedded value checked. */
extern SketchQuery *nddup_sketch_get_query(Datum d);

#endif							/* NDDUP_SKETCH_INDEX_H */
