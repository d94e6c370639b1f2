/*-------------------------------------------------------------------------
 *
 * trigger_options.c
 *	  The arguments of nddup_dedup_trigger, key=value strings, in pure C
 *	  (src/trigger/trigger.c raises the errors and resolves the columns).
 *
 * Keys and the values of method=, action=, lock= and visibility= are
 * case-insensitive (as pg_strcasecmp compares); unit= and weighting= are not.
 * Integers are read by strtol (leading spaces and a sign allowed), the
 * threshold by strtod.  See docs/trigger.md.
 *
 *-------------------------------------------------------------------------
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nddup_core.h"

const char *const nddup_trigger_keys[NDDUP_TRIGGER_NKEYS] = {
	"fingerprint", "source", "method", "radius", "size", "unit",
	"weighting", "id", "duplicate_of", "order", "action", "lock",
	"threshold", "k", "visibility", "scope", "verify", "verify_column", "filter", "measure"
};

/* One byte folded to lower case as pg_strcasecmp folds it. */
static unsigned char
fold_case(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c + ('a' - 'A');
	if (c >= 0x80 && isupper(c))
		return (unsigned char) tolower(c);
	return c;
}

/* Do the first len bytes of a equal the string b, ignoring case? */
static bool
equal_ignoring_case(const char *a, size_t len, const char *b)
{
	for (size_t i = 0; i < len; i++)
		if (fold_case((unsigned char) a[i]) != fold_case((unsigned char) b[i]))
			return false;			/* also where b ends first */
	return b[len] == '\0';
}

/* Does the string a equal b, ignoring case? */
static bool
same_word(const char *a, const char *b)
{
	return equal_ignoring_case(a, strlen(a), b);
}

/* Fill err and return its code. */
static NddupTriggerCode
fail(NddupTriggerError *err, NddupTriggerCode code, NddupTriggerKey key)
{
	err->code = code;
	err->key = key;
	return code;
}

/* Read the integer value of key into *out: INTEGER unless in [min, max]. */
static NddupTriggerCode
int_arg(const NddupTriggerArgs *a, NddupTriggerKey key, int32_t min, int32_t max,
		int32_t *out, NddupTriggerError *err)
{
	const char *value = a->values[key];
	char	   *end;
	long		v;

	errno = 0;
	v = strtol(value, &end, 10);
	if (*value == '\0' || *end != '\0' || errno != 0 || v < min || v > max)
	{
		err->min = min;
		err->max = max;
		/* no digits, or something after them: not a number at all */
		err->not_number = (end == value || *end != '\0');
		return fail(err, NDDUP_TRIGGER_INTEGER, key);
	}
	*out = (int32_t) v;
	return NDDUP_TRIGGER_OK;
}

/*
 * Read the value of key, a number in (0, 1], into *out; code unless it is
 * one.  errno is not consulted: strtod sets ERANGE for a subnormal result
 * written in decimal but not for the same value in hex, so the canonical
 * (decimal) form of an accepted value would be refused.  Underflow to 0 and
 * overflow fail the range test.
 */
static NddupTriggerCode
fraction_arg(const NddupTriggerArgs *a, NddupTriggerKey key, NddupTriggerCode code,
			 double *out, NddupTriggerError *err)
{
	const char *value = a->values[key];
	char	   *end;

	*out = strtod(value, &end);
	if (*value == '\0' || *end != '\0' || !(*out > 0.0 && *out <= 1.0))
	{
		err->not_number = (end == value || *end != '\0');
		return fail(err, code, key);
	}
	return NDDUP_TRIGGER_OK;
}

/*
 * Split the arguments into a->values and read method= (default simhash; the
 * server infers shingleset from the fingerprint column's type).
 * Errors: NOT_KEY_VALUE, UNKNOWN_KEY (err->arg, err->key_len),
 * DUPLICATE_KEY (err->key), METHOD.  The values point into args.
 */
NddupTriggerCode
nddup_trigger_split(int nargs, char *const *args, NddupTriggerArgs *a,
					NddupTriggerError *err)
{
	const char *method;

	memset(a, 0, sizeof(*a));
	memset(err, 0, sizeof(*err));
	for (int i = 0; i < nargs; i++)
	{
		const char *eq = strchr(args[i], '=');
		int			k;

		err->arg = i;
		if (eq == NULL || eq == args[i])
			return fail(err, NDDUP_TRIGGER_NOT_KEY_VALUE, 0);
		for (k = 0; k < NDDUP_TRIGGER_NKEYS; k++)
			if (equal_ignoring_case(args[i], (size_t) (eq - args[i]), nddup_trigger_keys[k]))
				break;
		if (k == NDDUP_TRIGGER_NKEYS)
		{
			err->key_len = (size_t) (eq - args[i]);
			return fail(err, NDDUP_TRIGGER_UNKNOWN_KEY, 0);
		}
		if (a->values[k] != NULL)
			return fail(err, NDDUP_TRIGGER_DUPLICATE_KEY, (NddupTriggerKey) k);
		a->values[k] = eq + 1;
	}
	a->method = NDDUP_TRIGGER_SIMHASH;
	method = a->values[NDDUP_TK_METHOD];
	if (method != NULL)
	{
		if (same_word(method, "simhash"))
			a->method = NDDUP_TRIGGER_SIMHASH;
		else if (same_word(method, "minhash"))
			a->method = NDDUP_TRIGGER_MINHASH;
		else if (same_word(method, "shingleset"))
			a->method = NDDUP_TRIGGER_SHINGLESET;
		else
			return fail(err, NDDUP_TRIGGER_METHOD, NDDUP_TK_METHOD);
	}
	return NDDUP_TRIGGER_OK;
}

/*
 * Read the method's parameter (radius= or threshold=, defaults 12 and 0.3),
 * action=, lock= and visibility=, and check that fingerprint= or source= is
 * given.  method=shingleset takes neither k= nor verify= / verify_column=
 * (its answer is exact), and alone takes measure= (jaccard, the default, or
 * containment of the new row's set in the original's).  Errors also
 * MEASURE.  Errors: NOT_FOR_METHOD (err->key), INTEGER, THRESHOLD, ACTION,
 * LOCK, VISIBILITY, NO_COLUMN.
 */
NddupTriggerCode
nddup_trigger_check_params(NddupTriggerArgs *a, NddupTriggerError *err)
{
	const char *const *v = a->values;

	if (a->method == NDDUP_TRIGGER_SIMHASH)
	{
		if (v[NDDUP_TK_THRESHOLD] != NULL || v[NDDUP_TK_K] != NULL || v[NDDUP_TK_FILTER] != NULL ||
			v[NDDUP_TK_MEASURE] != NULL)
			return fail(err, NDDUP_TRIGGER_NOT_FOR_METHOD,
						v[NDDUP_TK_THRESHOLD] != NULL ? NDDUP_TK_THRESHOLD :
						v[NDDUP_TK_K] != NULL ? NDDUP_TK_K :
						v[NDDUP_TK_FILTER] != NULL ? NDDUP_TK_FILTER : NDDUP_TK_MEASURE);
		a->radius = NDDUP_TRIGGER_DEFAULT_RADIUS;
		if (v[NDDUP_TK_RADIUS] != NULL &&
			int_arg(a, NDDUP_TK_RADIUS, 0, NDDUP_TRIGGER_MAX_RADIUS, &a->radius, err) != NDDUP_TRIGGER_OK)
			return err->code;
	}
	else
	{
		if (v[NDDUP_TK_RADIUS] != NULL || v[NDDUP_TK_WEIGHTING] != NULL)
			return fail(err, NDDUP_TRIGGER_NOT_FOR_METHOD,
						v[NDDUP_TK_RADIUS] != NULL ? NDDUP_TK_RADIUS : NDDUP_TK_WEIGHTING);
		/* exact sets: no sketch size, and nothing to verify */
		if (a->method == NDDUP_TRIGGER_SHINGLESET &&
			(v[NDDUP_TK_K] != NULL || v[NDDUP_TK_VERIFY] != NULL ||
			 v[NDDUP_TK_VERIFY_COLUMN] != NULL))
			return fail(err, NDDUP_TRIGGER_NOT_FOR_METHOD,
						v[NDDUP_TK_K] != NULL ? NDDUP_TK_K :
						v[NDDUP_TK_VERIFY] != NULL ? NDDUP_TK_VERIFY : NDDUP_TK_VERIFY_COLUMN);
		if (a->method == NDDUP_TRIGGER_MINHASH && v[NDDUP_TK_MEASURE] != NULL)
			return fail(err, NDDUP_TRIGGER_NOT_FOR_METHOD, NDDUP_TK_MEASURE);
		a->containment = false;
		if (v[NDDUP_TK_MEASURE] != NULL)
		{
			if (same_word(v[NDDUP_TK_MEASURE], "containment"))
				a->containment = true;
			else if (!same_word(v[NDDUP_TK_MEASURE], "jaccard"))
				return fail(err, NDDUP_TRIGGER_MEASURE, NDDUP_TK_MEASURE);
		}
		a->threshold = NDDUP_DEFAULT_SIMILARITY_THRESHOLD;
		if (v[NDDUP_TK_THRESHOLD] != NULL &&
			fraction_arg(a, NDDUP_TK_THRESHOLD, NDDUP_TRIGGER_THRESHOLD, &a->threshold,
						 err) != NDDUP_TRIGGER_OK)
			return err->code;
	}

	a->action = NDDUP_TRIGGER_MARK;
	if (v[NDDUP_TK_ACTION] != NULL)
	{
		if (same_word(v[NDDUP_TK_ACTION], "mark"))
			a->action = NDDUP_TRIGGER_MARK;
		else if (same_word(v[NDDUP_TK_ACTION], "skip"))
			a->action = NDDUP_TRIGGER_SKIP;
		else if (same_word(v[NDDUP_TK_ACTION], "error"))
			a->action = NDDUP_TRIGGER_ERROR;
		else
			return fail(err, NDDUP_TRIGGER_ACTION, NDDUP_TK_ACTION);
	}
	a->lock = NDDUP_TRIGGER_LOCK_BLOCKS;
	if (v[NDDUP_TK_LOCK] != NULL)
	{
		if (same_word(v[NDDUP_TK_LOCK], "blocks"))
			a->lock = NDDUP_TRIGGER_LOCK_BLOCKS;
		else if (same_word(v[NDDUP_TK_LOCK], "table"))
			a->lock = NDDUP_TRIGGER_LOCK_TABLE;
		else
			return fail(err, NDDUP_TRIGGER_LOCK, NDDUP_TK_LOCK);
	}
	a->visibility = NDDUP_TRIGGER_VISIBILITY_UNSET;
	if (v[NDDUP_TK_VISIBILITY] != NULL)
	{
		if (same_word(v[NDDUP_TK_VISIBILITY], "caller"))
			a->visibility = NDDUP_TRIGGER_VISIBILITY_CALLER;
		else if (same_word(v[NDDUP_TK_VISIBILITY], "all"))
			a->visibility = NDDUP_TRIGGER_VISIBILITY_ALL;
		else
			return fail(err, NDDUP_TRIGGER_VISIBILITY, NDDUP_TK_VISIBILITY);
	}
	if (v[NDDUP_TK_FINGERPRINT] == NULL && v[NDDUP_TK_SOURCE] == NULL)
		return fail(err, NDDUP_TRIGGER_NO_COLUMN, 0);
	return NDDUP_TRIGGER_OK;
}

/*
 * Read verify= (a number in (0, 1]; 0.3 when only verify_column= is given,
 * 0 for none), which needs the text (source=) or a stored value
 * (verify_column=) to verify with.  Errors: VERIFY, VERIFY_NO_VALUE.
 */
static NddupTriggerCode
check_verify(NddupTriggerArgs *a, NddupTriggerError *err)
{
	const char *const *v = a->values;

	a->verify = 0.0;
	if (v[NDDUP_TK_VERIFY] != NULL &&
		fraction_arg(a, NDDUP_TK_VERIFY, NDDUP_TRIGGER_VERIFY, &a->verify, err) != NDDUP_TRIGGER_OK)
		return err->code;
	if (v[NDDUP_TK_VERIFY] == NULL && v[NDDUP_TK_VERIFY_COLUMN] != NULL)
		a->verify = NDDUP_DEFAULT_SIMILARITY_THRESHOLD;
	if (a->verify > 0.0 && v[NDDUP_TK_SOURCE] == NULL && v[NDDUP_TK_VERIFY_COLUMN] == NULL)
		return fail(err, NDDUP_TRIGGER_VERIFY_NO_VALUE, NDDUP_TK_VERIFY);
	return NDDUP_TRIGGER_OK;
}

/*
 * Read the signature parameters size= (default 2 for simhash, 3 for
 * minhash), k= (128), unit= (word) and weighting= (tf), which apply only
 * with source=, then verify= and verify_column=.  Errors: SOURCE_ONLY,
 * INTEGER, UNIT, WEIGHTING, VERIFY, VERIFY_NO_VALUE.
 */
NddupTriggerCode
nddup_trigger_check_signature(NddupTriggerArgs *a, NddupTriggerError *err)
{
	const char *const *v = a->values;

	if (v[NDDUP_TK_SOURCE] == NULL &&
		(v[NDDUP_TK_SIZE] || v[NDDUP_TK_UNIT] || v[NDDUP_TK_WEIGHTING] || v[NDDUP_TK_K] ||
		 v[NDDUP_TK_FILTER]))
		return fail(err, NDDUP_TRIGGER_SOURCE_ONLY, 0);
	a->size = a->method == NDDUP_TRIGGER_SIMHASH ? 2 : 3;
	if (v[NDDUP_TK_SIZE] != NULL &&
		int_arg(a, NDDUP_TK_SIZE, 1, NDDUP_MAX_SHINGLE_SIZE, &a->size, err) != NDDUP_TRIGGER_OK)
		return err->code;
	a->k = NDDUP_TRIGGER_DEFAULT_K;
	if (v[NDDUP_TK_K] != NULL &&
		int_arg(a, NDDUP_TK_K, 1, NDDUP_MINHASH_MAX_K, &a->k, err) != NDDUP_TRIGGER_OK)
		return err->code;
	a->unit = v[NDDUP_TK_UNIT] ? v[NDDUP_TK_UNIT] : "word";
	if (strcmp(a->unit, "word") != 0 && strcmp(a->unit, "char") != 0 &&
		strcmp(a->unit, "word_") != 0)
		return fail(err, NDDUP_TRIGGER_UNIT, NDDUP_TK_UNIT);
	a->weighting = v[NDDUP_TK_WEIGHTING] ? v[NDDUP_TK_WEIGHTING] : "tf";
	if (strcmp(a->weighting, "tf") != 0 && strcmp(a->weighting, "set") != 0)
		return fail(err, NDDUP_TRIGGER_WEIGHTING, NDDUP_TK_WEIGHTING);
	return check_verify(a, err);
}
