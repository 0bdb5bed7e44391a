/* Input helpers shared by every kind: whole-file reading with transparent
 * gzip/zlib decompression (detected from the content, not the name), a line
 * walker that keeps line numbers for error messages, and strict number
 * parsing. */
#ifndef ORRERY_IO_H
#define ORRERY_IO_H

#include <stddef.h>
#include <stdint.h>

#include "../orrery.h"

typedef struct {
    char *data;   /* NUL-terminated for convenience; size excludes it */
    size_t size;
} orr_buffer;

/* Read path entirely. gzip (1f 8b) and zlib (78 01/5e/9c/da) content is
 * inflated; anything whose (decompressed) size exceeds max_bytes is refused
 * rather than exhausting memory. With text set, NUL bytes are an error. */
orr_status orr_read_file(const char *path, size_t max_bytes, int text,
                         orr_buffer *out, orr_error *err);
void orr_buffer_free(orr_buffer *b);

typedef struct {
    const char *path;   /* for messages */
    const char *pos;
    const char *end;
    int line;           /* number of the line last returned, 1-based */
} orr_lines;

void orr_lines_init(orr_lines *it, const char *path, const orr_buffer *buf);
/* Next line without its terminator (\n, \r\n); returns 0 at end of input. */
int orr_lines_next(orr_lines *it, const char **line, size_t *len);

/* FNV-1a over bytes, chainable: h = orr_hash64(h, ...) starting from
 * ORR_HASH64_INIT. Identifies input contents (checkpoints use it to tell
 * work units apart); not cryptographic. */
uint64_t orr_hash64(uint64_t h, const void *data, size_t n);
#define ORR_HASH64_INIT 0xcbf29ce484222325ULL

/* Strict numbers: the whole token (surrounding blanks allowed) must parse.
 * Return 0 on success. Non-finite doubles parse (callers decide). */
int orr_parse_double(const char *s, size_t len, double *out);
int orr_parse_long(const char *s, size_t len, long *out);

/* Split s[0..len) at commas or blanks into at most max numeric fields.
 * Returns the number of fields found, or -1 - i if field i is not a number
 * (or there are more than max fields: -1 - max). */
int orr_parse_double_list(const char *s, size_t len, double *out, int max);

/* ---- .npy arrays (numpy format 1.0, C order, little-endian) ---- */

typedef enum { ORR_NPY_F4, ORR_NPY_F8, ORR_NPY_C8, ORR_NPY_C16 } orr_npy_dtype;

typedef struct {
    orr_npy_dtype dtype;   /* float32, float64, complex64, complex128 */
    int ndim;              /* 1 to 4 */
    long shape[4];
    size_t count;          /* elements (a complex one counts once) */
    void *data;            /* count elements, malloc'd, native order */
} orr_npy;

const char *orr_npy_dtype_name(orr_npy_dtype t);   /* "float64", ... */
size_t orr_npy_item_size(orr_npy_dtype t);

/* Read path: refuses other dtypes, Fortran order, big-endian data, a
 * header or data that do not agree, with the file and the field named. */
orr_status orr_npy_read(const char *path, orr_npy *out, orr_error *err);
/* Write atomically enough for a tool: to path directly, checked. */
orr_status orr_npy_write(const char *path, orr_npy_dtype dtype, int ndim, const long *shape,
                         const void *data, orr_error *err);
void orr_npy_free(orr_npy *a);

#endif
