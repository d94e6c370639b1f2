/*-------------------------------------------------------------------------
 *
 * fuzz_trigger_args.c
 *	  libFuzzer harness for the argument parser of nddup_dedup_trigger
 *	  (src/core/trigger_options.c): the key=value strings of CREATE TRIGGER.
 *
 * Input: the arguments, separated by newlines (at most 32), each passed
 * as an exact-size C string.  The three steps run in the server's order,
 * as if every column named existed.
 *
 * Invariants (docs/reports/fuzzing.md): every rejection has a defined code whose
 * fields (the argument, the key) point at what the message names; the
 * splitting step rejects exactly the first argument that is not key=value
 * with a known key (ignoring case) given once; integers are read as strtol
 * reads them (spaces and a sign allowed) and must be in range; accepted
 * arguments are accepted in any order with the same result, and their
 * canonical form (every setting spelled out, in key order) is accepted
 * with the same result and written the same again.
 *
 *-------------------------------------------------------------------------
 */
#define HARNESS "fuzz_trigger_args"
#include <ctype.h>
#include <limits.h>

#include "fuzz_io.h"

#define MAX_ARGS	32

/* Run the three steps; the code of the first that fails. */
static NddupTriggerCode
parse(int nargs, char **args, NddupTriggerArgs *a, NddupTriggerError *err)
{
	NddupTriggerCode code = nddup_trigger_split(nargs, args, a, err);

	if (code == NDDUP_TRIGGER_OK)
		code = nddup_trigger_check_params(a, err);
	if (code == NDDUP_TRIGGER_OK)
		code = nddup_trigger_check_signature(a, err);
	CHECK(code == err->code || code == NDDUP_TRIGGER_OK, "code %d, err->code %d",
		  (int) code, (int) err->code);
	CHECK(code >= 0 && code < NDDUP_TRIGGER_NCODES, "code %d", (int) code);
	return code;
}

/* The key an argument names (ASCII case folded), or -1 (reference). */
static int
ref_key(const char *arg, size_t len)
{
	for (int k = 0; k < NDDUP_TRIGGER_NKEYS; k++)
	{
		const char *name = nddup_trigger_keys[k];
		size_t		i;

		if (strlen(name) != len)
			continue;
		for (i = 0; i < len; i++)
			if (tolower((unsigned char) arg[i]) != name[i])
				break;
		if (i == len)
			return k;
	}
	return -1;
}

/* Is s an integer as strtol reads it whole: spaces, a sign, digits? */
static bool
ref_integer(const char *s, long min, long max)
{
	long		v = 0;
	bool		negative;

	while (isspace((unsigned char) *s))
		s++;
	negative = *s == '-';
	if (*s == '-' || *s == '+')
		s++;
	if (!isdigit((unsigned char) *s))
		return false;
	for (; isdigit((unsigned char) *s); s++)
		if ((v = v * 10 + (*s - '0')) > 100000)
			v = 100000;			/* far beyond every range */
	return *s == '\0' && (negative ? -v : v) >= min && (negative ? -v : v) <= max;
}

/* Check the splitting step against the reference; true if it passes. */
static bool
check_split(int nargs, char **args, NddupTriggerCode code, const NddupTriggerError *err)
{
	bool		seen[NDDUP_TRIGGER_NKEYS] = {0};

	for (int i = 0; i < nargs; i++)
	{
		const char *eq = strchr(args[i], '=');
		int			k;

		if (eq == NULL || eq == args[i])
		{
			CHECK(code == NDDUP_TRIGGER_NOT_KEY_VALUE && err->arg == i,
				  "argument %d is not key=value: code %d", i, (int) code);
			return false;
		}
		k = ref_key(args[i], (size_t) (eq - args[i]));
		if (k < 0)
		{
			CHECK(code == NDDUP_TRIGGER_UNKNOWN_KEY && err->arg == i &&
				  err->key_len == (size_t) (eq - args[i]),
				  "argument %d has an unknown key: code %d", i, (int) code);
			return false;
		}
		if (seen[k])
		{
			CHECK(code == NDDUP_TRIGGER_DUPLICATE_KEY && err->key == (NddupTriggerKey) k,
				  "key %s given twice: code %d", nddup_trigger_keys[k], (int) code);
			return false;
		}
		seen[k] = true;
	}
	CHECK(code != NDDUP_TRIGGER_NOT_KEY_VALUE && code != NDDUP_TRIGGER_UNKNOWN_KEY &&
		  code != NDDUP_TRIGGER_DUPLICATE_KEY, "split error %d on good arguments", (int) code);
	return true;
}

/* Check the fields of a rejection after the splitting step. */
static void
check_rejection(const NddupTriggerArgs *a, NddupTriggerCode code, const NddupTriggerError *err)
{
	const char *value = a->values[err->key];

	switch (code)
	{
		case NDDUP_TRIGGER_METHOD:
		case NDDUP_TRIGGER_THRESHOLD:
		case NDDUP_TRIGGER_VERIFY:
		case NDDUP_TRIGGER_ACTION:
		case NDDUP_TRIGGER_LOCK:
		case NDDUP_TRIGGER_VISIBILITY:
		case NDDUP_TRIGGER_MEASURE:
		case NDDUP_TRIGGER_NOT_FOR_METHOD:
			CHECK(value != NULL, "code %d names key %s, which is not given", (int) code,
				  nddup_trigger_keys[err->key]);
			break;
		case NDDUP_TRIGGER_INTEGER:
			CHECK(value != NULL && err->min < err->max, "INTEGER fields");
			CHECK(!ref_integer(value, err->min, err->max), "%s=\"%s\" rejected",
				  nddup_trigger_keys[err->key], value);
			/* not a number: no integer prefix (as strtol reads), or more after it */
			CHECK(err->not_number == !ref_integer(value, LONG_MIN / 2, LONG_MAX / 2),
				  "%s=\"%s\": not_number %d", nddup_trigger_keys[err->key], value,
				  (int) err->not_number);
			break;
		case NDDUP_TRIGGER_UNIT:
			CHECK(a->unit != NULL && strcmp(a->unit, "word") != 0 &&
				  strcmp(a->unit, "char") != 0 && strcmp(a->unit, "word_") != 0,
				  "unit \"%s\" rejected", a->unit);
			break;
		case NDDUP_TRIGGER_WEIGHTING:
			CHECK(a->weighting != NULL && strcmp(a->weighting, "tf") != 0 &&
				  strcmp(a->weighting, "set") != 0, "weighting rejected");
			break;
		case NDDUP_TRIGGER_NO_COLUMN:
			CHECK(a->values[NDDUP_TK_FINGERPRINT] == NULL && a->values[NDDUP_TK_SOURCE] == NULL,
				  "NO_COLUMN with a column");
			break;
		case NDDUP_TRIGGER_SOURCE_ONLY:
			CHECK(a->values[NDDUP_TK_SOURCE] == NULL, "SOURCE_ONLY with source=");
			break;
		case NDDUP_TRIGGER_VERIFY_NO_VALUE:
			CHECK(a->values[NDDUP_TK_VERIFY] != NULL && a->values[NDDUP_TK_SOURCE] == NULL &&
				  a->values[NDDUP_TK_VERIFY_COLUMN] == NULL, "VERIFY_NO_VALUE");
			break;
		default:
			CHECK(false, "code %d after splitting", (int) code);
	}
}

/* Check accepted arguments: the values read and their integers. */
static void
check_accepted(const NddupTriggerArgs *a)
{
	const char *const *v = a->values;

	CHECK(v[NDDUP_TK_FINGERPRINT] != NULL || v[NDDUP_TK_SOURCE] != NULL, "no column");
	if (a->method == NDDUP_TRIGGER_SIMHASH)
		CHECK(v[NDDUP_TK_RADIUS] ? ref_integer(v[NDDUP_TK_RADIUS], 0, 32) &&
			  a->radius == strtol(v[NDDUP_TK_RADIUS], NULL, 10) : a->radius == 12, "radius");
	else
		CHECK(a->threshold > 0.0 && a->threshold <= 1.0, "threshold %g", a->threshold);
	CHECK(v[NDDUP_TK_SIZE] ? ref_integer(v[NDDUP_TK_SIZE], 1, 64) &&
		  a->size == strtol(v[NDDUP_TK_SIZE], NULL, 10) :
		  a->size == (a->method == NDDUP_TRIGGER_SIMHASH ? 2 : 3), "size");
	CHECK(v[NDDUP_TK_K] ? ref_integer(v[NDDUP_TK_K], 1, 1024) &&
		  a->k == strtol(v[NDDUP_TK_K], NULL, 10) : a->k == 128, "k");
	CHECK(v[NDDUP_TK_SOURCE] != NULL ||
		  (!v[NDDUP_TK_SIZE] && !v[NDDUP_TK_UNIT] && !v[NDDUP_TK_WEIGHTING] && !v[NDDUP_TK_K] &&
		   !v[NDDUP_TK_FILTER]),
		  "signature parameters without source=");
	CHECK(v[NDDUP_TK_VERIFY] || v[NDDUP_TK_VERIFY_COLUMN] ? a->verify > 0.0 && a->verify <= 1.0 &&
		  (v[NDDUP_TK_SOURCE] || v[NDDUP_TK_VERIFY_COLUMN]) : a->verify == 0.0, "verify %g",
		  a->verify);
}

/* Do two accepted argument lists say the same? */
static bool
same_result(const NddupTriggerArgs *a, const NddupTriggerArgs *b)
{
	static const NddupTriggerKey columns[] = {
		NDDUP_TK_FINGERPRINT, NDDUP_TK_SOURCE, NDDUP_TK_ID, NDDUP_TK_DUPLICATE_OF, NDDUP_TK_ORDER,
		NDDUP_TK_SCOPE, NDDUP_TK_VERIFY_COLUMN
	};

	for (int i = 0; i < 7; i++)
	{
		const char *x = a->values[columns[i]],
				   *y = b->values[columns[i]];

		if ((x == NULL) != (y == NULL) || (x != NULL && strcmp(x, y) != 0))
			return false;
	}
	return a->method == b->method && a->action == b->action && a->lock == b->lock &&
		a->visibility == b->visibility &&
		(a->method == NDDUP_TRIGGER_SIMHASH ? a->radius == b->radius :
		 memcmp(&a->threshold, &b->threshold, sizeof(double)) == 0) &&
		a->size == b->size && a->k == b->k && strcmp(a->unit, b->unit) == 0 &&
		strcmp(a->weighting, b->weighting) == 0 && a->containment == b->containment &&
		memcmp(&a->verify, &b->verify, sizeof(double)) == 0;
}

/* The canonical arguments of an accepted list, one per line, into out. */
static void
canonical(const NddupTriggerArgs *a, NddupBuf *out)
{
	static const NddupTriggerKey columns[] = {
		NDDUP_TK_FINGERPRINT, NDDUP_TK_SOURCE, NDDUP_TK_ID, NDDUP_TK_DUPLICATE_OF, NDDUP_TK_ORDER,
		NDDUP_TK_SCOPE, NDDUP_TK_VERIFY_COLUMN
	};

	for (int i = 0; i < 7; i++)
		if (a->values[columns[i]] != NULL)
			nddup_buf_printf(out, "%s=%s\n", nddup_trigger_keys[columns[i]],
							 a->values[columns[i]]);
	if (a->method == NDDUP_TRIGGER_SIMHASH)
		nddup_buf_printf(out, "method=simhash\nradius=%d\n", (int) a->radius);
	else
		nddup_buf_printf(out, "method=%s\nthreshold=%.17g\n",
						 a->method == NDDUP_TRIGGER_MINHASH ? "minhash" : "shingleset",
						 a->threshold);
	nddup_buf_printf(out, "action=%s\nlock=%s",
					 a->action == NDDUP_TRIGGER_MARK ? "mark" :
					 a->action == NDDUP_TRIGGER_SKIP ? "skip" : "error",
					 a->lock == NDDUP_TRIGGER_LOCK_BLOCKS ? "blocks" : "table");
	if (a->verify > 0.0)
		nddup_buf_printf(out, "\nverify=%.17g", a->verify);
	if (a->containment)
		nddup_buf_printf(out, "\nmeasure=containment");
	if (a->visibility != NDDUP_TRIGGER_VISIBILITY_UNSET)
		nddup_buf_printf(out, "\nvisibility=%s",
						 a->visibility == NDDUP_TRIGGER_VISIBILITY_CALLER ? "caller" : "all");
	if (a->values[NDDUP_TK_SOURCE] == NULL)
		return;
	nddup_buf_printf(out, "\nsize=%d\nunit=%s", (int) a->size, a->unit);
	if (a->method == NDDUP_TRIGGER_SIMHASH)
		nddup_buf_printf(out, "\nweighting=%s", a->weighting);
	else if (a->method == NDDUP_TRIGGER_MINHASH)
		nddup_buf_printf(out, "\nk=%d", (int) a->k);
}

/* Split text at newlines into at most MAX_ARGS exact-size strings. */
static int
split_lines(const char *text, size_t len, char **args)
{
	int			n = 0;
	size_t		start = 0;

	for (size_t i = 0; i <= len && n < MAX_ARGS; i++)
		if (i == len || text[i] == '\n')
		{
			args[n++] = fuzz_text((const uint8_t *) text + start, i - start);
			start = i + 1;
		}
	return n;
}

/* Free the strings of split_lines. */
static void
free_lines(char **args, int n)
{
	for (int i = 0; i < n; i++)
		free(args[i]);
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	   *args[MAX_ARGS],
			   *reversed[MAX_ARGS],
			   *canon[MAX_ARGS];
	int			nargs,
				ncanon;
	NddupTriggerArgs a,
				b,
				c;
	NddupTriggerError err;
	NddupTriggerCode code;
	NddupBuf	t1 = {0},
				t2 = {0};

	if (size > MAX_INPUT)
		return 0;
	nargs = size == 0 ? 0 : split_lines((const char *) data, size, args);
	code = parse(nargs, args, &a, &err);
	if (code == NDDUP_TRIGGER_NOT_KEY_VALUE || code == NDDUP_TRIGGER_UNKNOWN_KEY)
		CHECK(err.arg >= 0 && err.arg < nargs, "argument %d of %d", err.arg, nargs);
	if (check_split(nargs, args, code, &err) && code != NDDUP_TRIGGER_OK)
		check_rejection(&a, code, &err);

	/* any order gives the same outcome */
	for (int i = 0; i < nargs; i++)
		reversed[i] = args[nargs - 1 - i];
	if (code == NDDUP_TRIGGER_OK)
	{
		check_accepted(&a);
		CHECK(parse(nargs, reversed, &b, &err) == NDDUP_TRIGGER_OK && same_result(&a, &b),
			  "accepted in one order only");

		/* the canonical form says the same and is a fixed point */
		canonical(&a, &t1);
		ncanon = split_lines(t1.data, t1.len, canon);
		CHECK(parse(ncanon, canon, &c, &err) == NDDUP_TRIGGER_OK, "canonical form rejected: %s",
			  t1.data);
		CHECK(same_result(&a, &c), "canonical form differs: %s", t1.data);
		canonical(&c, &t2);
		CHECK(t1.len == t2.len && strcmp(t1.data, t2.data) == 0, "not canonical: %s / %s",
			  t1.data, t2.data);
		free_lines(canon, ncanon);
		nddup_buf_free(&t1);
		nddup_buf_free(&t2);
	}
	free_lines(args, nargs);
	return 0;
}
