/* File helpers shared by every kind: opening inputs that are regular files
 * only, whole-file reading with transparent gzip/zlib decompression
 * (detected from the content, not the name), a line walker that keeps line
 * numbers for error messages, strict number parsing, and output files
 * written whole or not at all. */
#ifndef ORRERY_IO_H
#define ORRERY_IO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../orrery.h"

/* Open path for reading if it is a regular file. A FIFO, device, socket or
 * directory is refused at once, naming the file and what it is: opening a
 * FIFO would wait forever for a writer, and pipes (/dev/stdin) are not
 * supported. ORR_ERR_OPEN on failure, with errno ENOENT when there is no
 * such file (callers for whom that is normal tell it apart). */
orr_status orr_open_input(const char *path, FILE **out, orr_error *err);

typedef struct {
    char *data;   /* NUL-terminated for convenience; size excludes it */
    size_t size;
} orr_buffer;

/* Read path entirely. gzip (1f 8b) and zlib (78 01/5e/9c/da) content is
 * inflated, every member of a multi-member gzip file (`cat a.gz b.gz`, as
 * gzip -d reads it); other data after the compressed stream is refused
 * (ORR_ERR_PARSE, naming the file and the byte). Anything whose
 * (decompressed) size exceeds max_bytes is refused rather than exhausting
 * memory. With text set, NUL bytes are an error. */
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

/* ---- output files ---- */

/* An output file written whole or not at all: created as PATH + suffix
 * (whatever is there first, a planted symlink included, is unlinked; then
 * O_CREAT|O_EXCL|O_NOFOLLOW, mode 0644), renamed over PATH by
 * orr_output_commit after fflush+fsync. Errors name the file and carry
 * strerror(errno). open runs orr_output_check on PATH first, so a device
 * such as /dev/null is never renamed over. */
typedef struct {
    FILE *f;
    char path[4096];
    char tmp[4112];
} orr_output;
orr_status orr_output_open(orr_output *o, const char *path, const char *suffix, orr_error *err);
/* Closes o->f whatever happens; on failure the temporary is removed and
 * PATH is left as it was. */
orr_status orr_output_commit(orr_output *o, orr_error *err);
/* Closes and removes the temporary; safe if not open (o zeroed, after a
 * failed open, after commit). */
void orr_output_abort(orr_output *o);
/* Before computing: can PATH be written? Its folder exists and is a
 * writable directory, and PATH itself, if it exists, is a regular file
 * (not a directory). Errors name the path and say why (strerror). */
orr_status orr_output_check(const char *path, orr_error *err);

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

/* Read path: refuses other dtypes, Fortran order, big-endian data, a shape
 * whose size overflows, a file whose size is not what the header promises
 * (checked before anything is allocated), with the file and the field
 * named: ORR_ERR_PARSE or ORR_ERR_INPUT (exit 65). */
orr_status orr_npy_read(const char *path, orr_npy *out, orr_error *err);
/* Write whole or not at all (orr_output, suffix ".partial"). */
orr_status orr_npy_write(const char *path, orr_npy_dtype dtype, int ndim, const long *shape,
                         const void *data, orr_error *err);
void orr_npy_free(orr_npy *a);

#endif
