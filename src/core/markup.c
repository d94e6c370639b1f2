/*-------------------------------------------------------------------------
 *
 * markup.c
 *	  HTML markup and character references as the text pipeline reads them
 *	  (docs/text-pipeline.md): tags, comments, script and style elements
 *	  removed (inline elements without a separator), named and numeric
 *	  character references decoded.
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "nddup_core.h"
#include "html_entities.h"

/* Inline HTML elements: their tags are removed without a separator. */
static const char *const inline_elements[] = {
	"a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "del", "dfn",
	"em", "font", "i", "ins", "kbd", "mark", "q", "s", "samp", "small",
	"span", "strike", "strong", "sub", "sup", "time", "tt", "u", "var", "wbr"
};

#define INLINE_NAME_MAX		6

/* Is c an ASCII letter? */
static inline bool
is_alpha(uint8_t c)
{
	return (uint8_t) ((c | 0x20) - 'a') < 26;
}

/* Is c an ASCII letter or digit? */
static inline bool
is_alnum(uint8_t c)
{
	return is_alpha(c) || (uint8_t) (c - '0') < 10;
}

/* Does c end an HTML tag name (whitespace, '/' or '>')? */
static inline bool
is_name_end(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
		c == '/' || c == '>';
}

/* Does p start with the lower-case ASCII word w, ignoring ASCII case? */
static bool
match_ci(const uint8_t *p, const uint8_t *end, const char *w)
{
	size_t		n = strlen(w);
	size_t		i;

	if ((size_t) (end - p) < n)
		return false;
	for (i = 0; i < n; i++)
	{
		uint8_t		c = p[i];

		if (c >= 'A' && c <= 'Z')
			c += 'a' - 'A';
		if (c != (uint8_t) w[i])
			return false;
	}
	return true;
}

/*
 * First '>' at or after from, or NULL.  *no_gt_from (NULL or a position with
 * no '>' at or after it) remembers failures, which keeps markup parsing
 * linear on texts with many '<' and no '>'.
 */
static const uint8_t *
find_gt(const uint8_t **no_gt_from, const uint8_t *from, const uint8_t *end)
{
	const uint8_t *r;

	if (*no_gt_from != NULL && from >= *no_gt_from)
		return NULL;
	r = memchr(from, '>', end - from);
	if (r == NULL)
		*no_gt_from = from;
	return r;
}

/* Is the tag between p ('<') and gt ('>') an inline element's tag? */
static bool
is_inline_tag(const uint8_t *p, const uint8_t *gt)
{
	const uint8_t *q = p + 1;
	char		name[INLINE_NAME_MAX + 1];
	size_t		n = 0;
	size_t		i;

	if (*q == '/')
		q++;
	while (q < gt && is_alnum(*q))
	{
		if (n == INLINE_NAME_MAX)
			return false;
		name[n++] = (char) (*q | 0x20);
		q++;
	}
	if (n == 0 || !is_name_end(*q))
		return false;
	name[n] = '\0';
	for (i = 0; i < sizeof(inline_elements) / sizeof(inline_elements[0]); i++)
	{
		if (strcmp(name, inline_elements[i]) == 0)
			return true;
	}
	return false;
}

/* Find "-->" in [from, end), or NULL. */
static const uint8_t *
find_comment_end(const uint8_t *from, const uint8_t *end)
{
	while (end - from >= 3)
	{
		const uint8_t *q = memchr(from + 2, '>', end - from - 2);

		if (q == NULL)
			return NULL;
		if (q[-1] == '-' && q[-2] == '-')
			return q - 2;
		from = q - 1;
	}
	return NULL;
}

/*
 * Markup starting at p ('<'): returns the number of bytes it covers (0 if
 * the '<' is literal text) and sets *separator if it stands for a space.
 */
size_t
nddup_parse_markup(const uint8_t **no_gt_from, const uint8_t *p, const uint8_t *end,
			 bool *separator)
{
	static const char *const rawtext[] = {"script", "style"};
	const uint8_t *gt;
	uint8_t		c;
	size_t		i;

	if (end - p < 2)
		return 0;
	c = p[1];

	/*
	 * comment: removed up to the first "-->" after "<!" (so "<!-->" is an
	 * empty comment), or to the end if there is none
	 */
	if (c == '!' && end - p >= 4 && p[2] == '-' && p[3] == '-')
	{
		const uint8_t *close = find_comment_end(p + 2, end);

		*separator = false;
		return close ? (size_t) (close + 3 - p) : (size_t) (end - p);
	}

	/* script and style elements: removed with their content */
	for (i = 0; is_alpha(c) && i < 2; i++)
	{
		const char *name = rawtext[i];
		size_t		len = strlen(name);
		const uint8_t *q;

		if (!match_ci(p + 1, end, name) || end - p < (long) len + 2 ||
			!is_name_end(p[1 + len]))
			continue;
		gt = find_gt(no_gt_from, p + 1 + len, end);
		if (gt == NULL)
			return 0;
		*separator = true;
		for (q = gt + 1; q < end; q++)
		{
			const uint8_t *close;

			q = memchr(q, '<', end - q);
			if (q == NULL)
				break;
			if (end - q < (long) len + 3 || q[1] != '/' ||
				!match_ci(q + 2, end, name) || !is_name_end(q[2 + len]))
				continue;
			close = find_gt(no_gt_from, q + 2 + len, end);
			return close ? (size_t) (close + 1 - p) : (size_t) (end - p);
		}
		return end - p;
	}

	/* any other tag */
	if (is_alpha(c) || c == '/' || c == '!' || c == '?')
	{
		gt = find_gt(no_gt_from, p + 1, end);
		if (gt == NULL)
			return 0;
		*separator = !is_inline_tag(p, gt);
		return gt + 1 - p;
	}
	return 0;
}

/* Compare an entity name of len bytes with a table name (as strcmp). */
static int
entity_cmp(const uint8_t *name, size_t len, const char *key)
{
	size_t		klen = strlen(key);
	int			r = memcmp(name, key, len < klen ? len : klen);

	if (r != 0)
		return r;
	return (len > klen) - (len < klen);
}

/*
 * Character reference starting at p ('&'): stores its code points in cps
 * and returns how many (0 if the '&' is literal text), setting *consumed.
 */
int
nddup_parse_entity(const uint8_t *p, const uint8_t *end, uint32_t cps[2],
			 size_t *consumed)
{
	const uint8_t *q = p + 1;

	if (q < end && *q == '#')
	{
		bool		hex = false;
		uint32_t	value = 0;
		const uint8_t *digits;

		q++;
		if (q < end && (*q == 'x' || *q == 'X'))
		{
			hex = true;
			q++;
		}
		digits = q;
		for (; q < end; q++)
		{
			uint32_t	d;

			if ((uint8_t) (*q - '0') < 10)
				d = *q - '0';
			else if (hex && (uint8_t) ((*q | 0x20) - 'a') < 6)
				d = (*q | 0x20) - 'a' + 10;
			else
				break;
			value = value * (hex ? 16 : 10) + d;
			if (value > 0x10FFFF)
				value = 0x110000;	/* saturate: stays out of range */
		}
		if (q == digits || q >= end || *q != ';')
			return 0;
		if (value == 0 || value > 0x10FFFF ||
			(value >= 0xD800 && value <= 0xDFFF))
			value = NDDUP_REPLACEMENT_CHAR;
		cps[0] = value;
		*consumed = q + 1 - p;
		return 1;
	}
	else
	{
		size_t		len;
		size_t		lo = 0;
		size_t		hi = sizeof(nddup_html_entities) / sizeof(nddup_html_entities[0]);

		while (q < end && is_alnum(*q) && q - p <= NDDUP_HTML_ENTITY_MAX_LEN)
			q++;
		len = q - p - 1;
		if (len == 0 || len > NDDUP_HTML_ENTITY_MAX_LEN || q >= end || *q != ';')
			return 0;
		while (lo < hi)
		{
			size_t		mid = lo + (hi - lo) / 2;
			int			r = entity_cmp(p + 1, len, nddup_html_entities[mid].name);

			if (r == 0)
			{
				const NddupHtmlEntity *e = &nddup_html_entities[mid];

				cps[0] = e->cp[0];
				cps[1] = e->cp[1];
				*consumed = len + 2;
				return e->cp[1] ? 2 : 1;
			}
			if (r > 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		return 0;
	}
}

/*
 * Length of the markup that starts at p ('<'), as nddup_normalize reads
 * it: 0 if the '<' is text; *separator tells whether it stands for a space.
 */
size_t
nddup_markup_length(const char *p, const char *end, bool *separator,
					const char **no_gt_from)
{
	const uint8_t *no_gt = (const uint8_t *) *no_gt_from;
	size_t		n;

	*separator = false;
	n = nddup_parse_markup(&no_gt, (const uint8_t *) p, (const uint8_t *) end,
					 separator);
	*no_gt_from = (const char *) no_gt;
	return n;
}

/*
 * The character reference that starts at p ('&'), as nddup_normalize reads
 * it: its code points in cps, their number (0 if the '&' is text) as the
 * result, its length in *consumed.
 */
int
nddup_char_reference(const char *p, const char *end, uint32_t cps[2],
					 size_t *consumed)
{
	return nddup_parse_entity((const uint8_t *) p, (const uint8_t *) end, cps,
						consumed);
}
