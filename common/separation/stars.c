/* Star catalogues: a count line, then `l b r` per star; plain or
 * gzip/zlib-compressed (detected from the content). */
#include "separation.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../io/io.h"

#define STARS_MAX_BYTES ((size_t)1 << 30)
#define STARS_MAX_COUNT 50000000L

/* The first non-blank line: the number of stars. */
static orr_status read_count(orr_lines *it, const char *path, size_t len, long *count,
                             orr_error *err)
{
    const char *s;
    size_t n;
    int found = 0;
    while (orr_lines_next(it, &s, &n)) {
        if (strspn(s, " \t") >= n)
            continue;
        if (orr_parse_long(s, n, count) != 0)
            return orr_fail(err, ORR_ERR_PARSE, "%s:%d: expected the number of stars, found '%.40s'",
                            path, it->line, s);
        found = 1;
        break;
    }
    if (!found)
        return orr_fail(err, ORR_ERR_PARSE, "%s: empty star file (expected the number of stars)", path);
    if (*count < 1 || *count > STARS_MAX_COUNT)
        return orr_fail(err, ORR_ERR_INPUT, "%s:%d: star count %ld is outside 1..%ld", path, it->line,
                        *count, STARS_MAX_COUNT);
    /* Refuse a count the file cannot possibly hold before allocating for it. */
    if ((size_t)*count > len / 6 + 1)
        return orr_fail(err, ORR_ERR_INPUT, "%s:%d: the file declares %ld stars but is only %zu bytes long",
                        path, it->line, *count, len);
    return ORR_OK;
}

/* Star number `star` from its line: l b r, finite, -90 <= b <= 90, r > 0. */
static orr_status parse_star(const char *path, int line, int star, const char *s, size_t n,
                             double v[3], orr_error *err)
{
    int k = orr_parse_double_list(s, n, v, 3);
    if (k != 3) {
        if (k < 0 && k != -4)
            return orr_fail(err, ORR_ERR_PARSE, "%s:%d: star %d: field %d is not a number", path,
                            line, star, -k);
        return orr_fail(err, ORR_ERR_PARSE, "%s:%d: star %d: expected 3 fields (l b r), found %s",
                        path, line, star, k < 0 ? "more" : (k == 0 ? "none" : k == 1 ? "1" : "2"));
    }
    if (!isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2]))
        return orr_fail(err, ORR_ERR_INPUT, "%s:%d: star %d: non-finite value", path, line, star);
    if (!(v[2] > 0.0) || v[1] < -90.0 || v[1] > 90.0)
        return orr_fail(err, ORR_ERR_INPUT,
                        "%s:%d: star %d: needs -90 <= b <= 90 and r > 0 kpc (found b = %g, r = %g)",
                        path, line, star, v[1], v[2]);
    return ORR_OK;
}

/* The star lines after the count, exactly count of them, into out. */
static orr_status read_stars(orr_lines *it, const char *path, long count, sep_stars *out,
                             orr_error *err)
{
    const char *s;
    size_t n;
    int have = 0;
    while (orr_lines_next(it, &s, &n)) {
        if (strspn(s, " \t") >= n)
            continue;
        if (have >= count)
            return orr_fail(err, ORR_ERR_INPUT,
                            "%s:%d: more star lines than the %ld declared on the first line", path,
                            it->line, count);
        double v[3];
        const orr_status st = parse_star(path, it->line, have + 1, s, n, v, err);
        if (st != ORR_OK)
            return st;
        out->l[have] = v[0];
        out->b[have] = v[1];
        out->r[have] = v[2];
        have++;
    }
    if (have != count)
        return orr_fail(err, ORR_ERR_INPUT, "%s: the first line declares %ld stars but the file holds %d",
                        path, count, have);
    out->n = have;
    return ORR_OK;
}

orr_status sep_stars_parse(const char *path, const char *text, size_t len, sep_stars *out,
                           orr_error *err)
{
    orr_buffer buf = {(char *)text, len};
    orr_lines it;
    long count = 0;

    memset(out, 0, sizeof *out);
    orr_lines_init(&it, path, &buf);
    orr_status st = read_count(&it, path, len, &count, err);
    if (st != ORR_OK)
        return st;
    out->l = malloc((size_t)count * sizeof(double));
    out->b = malloc((size_t)count * sizeof(double));
    out->r = malloc((size_t)count * sizeof(double));
    if (!out->l || !out->b || !out->r) {
        sep_stars_free(out);
        return orr_fail(err, ORR_ERR_NOMEM, "%s: out of memory for %ld stars", path, count);
    }
    st = read_stars(&it, path, count, out, err);
    if (st != ORR_OK)
        sep_stars_free(out);
    return st;
}

orr_status sep_stars_load(const char *path, sep_stars *out, orr_error *err)
{
    orr_buffer buf;
    orr_status s = orr_read_file(path, STARS_MAX_BYTES, 1, &buf, err);
    if (s != ORR_OK)
        return s;
    s = sep_stars_parse(path, buf.data, buf.size, out, err);
    out->content_hash = orr_hash64(ORR_HASH64_INIT, buf.data, buf.size);
    orr_buffer_free(&buf);
    return s;
}

void sep_stars_free(sep_stars *s)
{
    free(s->l);
    free(s->b);
    free(s->r);
    s->l = s->b = s->r = NULL;
    s->n = 0;
}
