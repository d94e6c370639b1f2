"""nddup's text pipeline in Python (docs/text-pipeline.md), for reference measurements.

    from nddtext import tokens, shingle_set
    tokens('<p>東京abc&amp;foo_bar</p>')               -> ['東', '京', 'abc', 'foo', 'bar']
    tokens('foo_bar baz', keep_underscore=True)       -> ['foo_bar', 'baz']

Steps, in nddup's order: HTML removal on the raw text (comments without a separator, script/style
elements and tags as one separator except the inline elements, HTML5 named and numeric character
references decoded), Unicode NFKC, full case folding (str.casefold = CaseFolding C + F), words =
maximal runs of General Category L*/M*/N* code points, and inside a word every Ideographic /
Hiragana / Katakana code point (and U+30FC) is a token of its own together with the combining marks
that follow it.  keep_underscore=True also counts '_' as a word character (the proposed change).

Fidelity: General Category, Ideographic and Script come from Unicode 15.0.0 (nddup's version) when
Debian's unicode-data package is installed (/usr/share/unicode), otherwise from Python's
unicodedata (14.0.0 in Python 3.11) and built-in ranges.  NFKC and case folding are Python's
(Unicode 14.0.0): they differ from nddup only on characters new in Unicode 15.0.
Word shingles are kept as tuples of tokens (a set), not XXH3 hashes: set sizes and Jaccard values
are the same as nddup's exact shingle sets up to 64-bit hash collisions.
"""
import html.entities
import os
import re
import sys
import unicodedata

UCD = '/usr/share/unicode'

# ---------------------------------------------------------------- character classes


def _ranges_from_ucd():
    """(word ranges, cjk ranges) from UnicodeData.txt, PropList.txt, Scripts.txt (Unicode 15.0)."""
    word = []
    first = None
    with open(os.path.join(UCD, 'UnicodeData.txt'), encoding='ascii') as f:
        for line in f:
            p = line.split(';')
            cp, name, gc = int(p[0], 16), p[1], p[2]
            if name.endswith(', First>'):
                first = cp
                continue
            lo = first if name.endswith(', Last>') else cp
            first = None
            if gc[0] in 'LMN':
                word.append((lo, cp))
    cjk = [(0x30FC, 0x30FC)]
    for fname, want in (('PropList.txt', 'Ideographic'), ('Scripts.txt', 'Hiragana'), ('Scripts.txt', 'Katakana')):
        with open(os.path.join(UCD, fname), encoding='utf-8') as f:
            for line in f:
                line = line.split('#')[0].strip()
                if not line:
                    continue
                r, prop = [x.strip() for x in line.split(';')]
                if prop != want:
                    continue
                a, _, b = r.partition('..')
                cjk.append((int(a, 16), int(b or a, 16)))
    return word, cjk


# Ideographic (PropList 15.0) + Hiragana + Katakana (Scripts 15.0), used without unicode-data.
_CJK_BUILTIN = [
    (0x3006, 0x3007), (0x3021, 0x3029), (0x3038, 0x303A), (0x3400, 0x4DBF), (0x4E00, 0x9FFF),
    (0xF900, 0xFA6D), (0xFA70, 0xFAD9), (0x16FE4, 0x16FE4), (0x17000, 0x187F7), (0x18800, 0x18CD5),
    (0x18D00, 0x18D08), (0x1B170, 0x1B2FB), (0x20000, 0x2A6DF), (0x2A700, 0x2B739), (0x2B740, 0x2B81D),
    (0x2B820, 0x2CEA1), (0x2CEB0, 0x2EBE0), (0x2F800, 0x2FA1D), (0x30000, 0x3134A), (0x31350, 0x323AF),
    (0x3041, 0x3096), (0x309D, 0x309F), (0x1B001, 0x1B11F), (0x1B132, 0x1B132), (0x1B150, 0x1B152),
    (0x1F200, 0x1F200), (0x30A1, 0x30FA), (0x30FC, 0x30FF), (0x31F0, 0x31FF), (0x32D0, 0x32FE),
    (0x3300, 0x3357), (0xFF66, 0xFF6F), (0xFF71, 0xFF9D), (0x1AFF0, 0x1AFF3), (0x1AFF5, 0x1AFFB),
    (0x1AFFD, 0x1AFFE), (0x1B000, 0x1B000), (0x1B120, 0x1B122), (0x1B155, 0x1B155), (0x1B164, 0x1B167),
]


def _ranges_builtin():
    word, start = [], None
    for cp in range(0x110000):
        w = unicodedata.category(chr(cp))[0] in 'LMN'
        if w and start is None:
            start = cp
        elif not w and start is not None:
            word.append((start, cp - 1))
            start = None
    return word, list(_CJK_BUILTIN)


def _merge(rs):
    out = []
    for a, b in sorted(rs):
        if out and a <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _minus(rs, cut):
    """Ranges rs minus ranges cut (both merged)."""
    out = []
    for a, b in rs:
        pieces = [(a, b)]
        for c, d in cut:
            nxt = []
            for x, y in pieces:
                if d < x or c > y:
                    nxt.append((x, y))
                    continue
                if x < c:
                    nxt.append((x, c - 1))
                if d < y:
                    nxt.append((d + 1, y))
            pieces = nxt
        out.extend(pieces)
    return out


def _cls(rs):
    def e(cp):
        return '\\U%08x' % cp
    return ''.join(e(a) if a == b else e(a) + '-' + e(b) for a, b in rs)


try:
    _WORD, _CJK = _ranges_from_ucd()
    UNICODE_SOURCE = 'unicode-data 15.0 (' + UCD + ')'
except OSError:
    _WORD, _CJK = _ranges_builtin()
    UNICODE_SOURCE = 'python unicodedata ' + unicodedata.unidata_version
_WORD = _merge(_WORD)
_CJKW = _merge([(max(a, c), min(b, d)) for a, b in _merge(_CJK) for c, d in _WORD if max(a, c) <= min(b, d)])
_MARK = _merge([(cp, cp) for a, b in _WORD for cp in range(a, b + 1) if unicodedata.category(chr(cp))[0] == 'M'])
_OTHER = _merge(_minus(_WORD, _CJKW))                      # word characters that form runs (incl. marks)
TOKEN_RE = re.compile('[%s][%s]*|[%s]+' % (_cls(_CJKW), _cls(_MARK), _cls(_OTHER)))
TOKEN_US_RE = re.compile('[%s][%s]*|[%s_]+' % (_cls(_CJKW), _cls(_MARK), _cls(_OTHER)))

# ---------------------------------------------------------------- HTML removal

_ENT = {k[:-1]: v for k, v in html.entities.html5.items() if k.endswith(';')}
_SPECIAL = re.compile(r'[<&]')
_REF = re.compile(r'&(?:#[xX]([0-9A-Fa-f]+)|#([0-9]+)|([A-Za-z][A-Za-z0-9]*));')
_RAWTEXT = re.compile(r'<(script|style)[ \t\n\r\f/>]', re.I)
_INLINE = re.compile(r'</?(?:a|abbr|b|bdi|bdo|cite|code|data|del|dfn|em|font|i|ins|kbd|mark|q|s|samp|small|'
                     r'span|strike|strong|sub|sup|time|tt|u|var|wbr)[ \t\n\r\f/>]', re.I)
_END = {'script': re.compile(r'</script[ \t\n\r\f/>]', re.I), 'style': re.compile(r'</style[ \t\n\r\f/>]', re.I)}


def _numref(v):
    if v == 0 or 0xD800 <= v <= 0xDFFF or v > 0x10FFFF:
        return '\ufffd'
    return chr(v)


def strip_html(s):
    if '<' not in s and '&' not in s:
        return s
    out, i, n = [], 0, len(s)
    while True:
        m = _SPECIAL.search(s, i)
        if not m:
            out.append(s[i:])
            break
        j = m.start()
        out.append(s[i:j])
        if s[j] == '&':
            r = _REF.match(s, j)
            if r is None:
                out.append('&')
                i = j + 1
            elif r.group(3) is not None:
                v = _ENT.get(r.group(3))
                if v is None:
                    out.append('&')
                    i = j + 1
                else:
                    out.append(v)
                    i = r.end()
            else:
                out.append(_numref(int(r.group(1), 16) if r.group(1) else int(r.group(2))))
                i = r.end()
            continue
        if s.startswith('<!--', j):                       # comment: no separator
            k = s.find('-->', j + 2)
            i = n if k < 0 else k + 3
            continue
        c = s[j + 1:j + 2]
        if not (c and (('a' <= c <= 'z') or ('A' <= c <= 'Z') or c in '/!?')):
            out.append('<')
            i = j + 1
            continue
        k = s.find('>', j + 1)
        if k < 0:                                         # no '>': ordinary text
            out.append('<')
            i = j + 1
            continue
        rm = _RAWTEXT.match(s, j)
        if rm:                                            # script / style element with its content
            e = _END[rm.group(1).lower()].search(s, k + 1)
            if e is None:
                i = n
            else:
                k2 = s.find('>', e.start() + 2)
                i = n if k2 < 0 else k2 + 1
            out.append(' ')
            continue
        if not _INLINE.match(s, j):
            out.append(' ')
        i = k + 1
    return ''.join(out)


# ---------------------------------------------------------------- pipeline


def normalize(text):
    """HTML removal, NFKC, case folding (separators not collapsed: use tokens())."""
    return unicodedata.normalize('NFKC', strip_html(text)).casefold()


def tokens(text, keep_underscore=False):
    return (TOKEN_US_RE if keep_underscore else TOKEN_RE).findall(normalize(text))


def shingle_set(toks, w=3):
    n = len(toks)
    if n == 0:
        return set()
    if n < w:
        return {tuple(toks)}
    return set(zip(*(toks[i:] for i in range(w))))


def _selftest():
    cases = [
        ('<p>The <b>Quick</b> brown&nbsp;fox!</p>', ['the', 'quick', 'brown', 'fox']),
        ('東京abc 123', ['東', '京', 'abc', '123']),
        ('日本語のデータ', ['日', '本', '語', 'の', 'デ', 'ー', 'タ']),
        ('iPhone手机', ['iphone', '手', '机']),
        ('한국어 텍스트', ['한국어', '텍스트']),
        ('Привет, МИР!', ['привет', 'мир']),
        ('a<!-- x -->b', ['ab']), ('a<!-->b', ['ab']), ('foo<b>bar</b>', ['foobar']), ('foo<p>bar', ['foo', 'bar']),
        ('x<script>var a</script>y', ['x', 'y']), ('a<scripts>b', ['a', 'b']), ('a < b', ['a', 'b']),
        ('x<1', ['x', '1']), ('&amp', ['amp']), ('&lt;b&gt;', ['b']), ('e&#x301;', ['é']), ('ß', ['ss']),
        ('ﬁ Ｆｕｌｌ ①', ['fi', 'full', '1']), ('under_score it\'s 3.14 a-b', ['under', 'score', 'it', 's', '3', '14', 'a', 'b']),
        ('ｶﾞ', ['ガ']), ('&#0;a&#x110000;', ['a']),
    ]
    bad = 0
    for text, want in cases:
        got = tokens(text)
        if got != want:
            bad += 1
            print(f'FAIL {text!r}: {got} != {want}')
    if tokens('foo_bar __init__', keep_underscore=True) != ['foo_bar', '__init__']:
        bad += 1
        print('FAIL keep_underscore')
    print(f'{len(cases) + 1 - bad}/{len(cases) + 1} ok ({UNICODE_SOURCE})')
    return bad


if __name__ == '__main__':
    sys.exit(1 if _selftest() else 0)
