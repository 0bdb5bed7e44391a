/* Opening inputs (regular files only), whole-file reading with
 * content-detected decompression, line walking, strict number parsing and
 * output files written whole or not at all. */
#include "io.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static int is_gzip(const unsigned char *p, size_t n)
{
    return n >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

static int is_zlib(const unsigned char *p, size_t n)
{
    /* CMF 0x78 (deflate, 32K window) and a header checksum that holds. */
    return n >= 2 && p[0] == 0x78 && ((p[0] << 8) | p[1]) % 31 == 0;
}

/* What a file that is not a regular one is, for messages. */
static const char *file_kind(mode_t m)
{
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISFIFO(m))
        return "a pipe (FIFO)";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISSOCK(m))
        return "a socket";
    return "not a regular file";
}

/* ORR_ERR_OPEN for an input that is not a regular file; errno says so too
 * (never ENOENT, which means "no such file" to callers). */
static orr_status refuse_kind(const char *path, mode_t m, orr_error *err)
{
    orr_fail(err, ORR_ERR_OPEN, "%s: is %s, not a regular file%s", path, file_kind(m),
             S_ISFIFO(m) ? " (inputs are read from files: /dev/stdin and other pipes are "
                           "not supported)"
                         : "");
    errno = S_ISDIR(m) ? EISDIR : EINVAL;
    return ORR_ERR_OPEN;
}

orr_status orr_open_input(const char *path, FILE **out, orr_error *err)
{
    *out = NULL;
    /* O_NONBLOCK: opening a FIFO without a writer returns at once instead
     * of waiting; fstat on the descriptor then tells what was opened, with
     * no window between looking and opening. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        struct stat st;
        /* A socket cannot be opened at all (ENXIO): say what it is. */
        if (e != ENOENT && stat(path, &st) == 0 && !S_ISREG(st.st_mode))
            return refuse_kind(path, st.st_mode, err);
        orr_fail(err, ORR_ERR_OPEN, "%s: cannot open: %s", path, strerror(e));
        errno = e;
        return ORR_ERR_OPEN;
    }
    struct stat st;
    int flags;
    if (fstat(fd, &st) != 0 || (flags = fcntl(fd, F_GETFL)) < 0 ||
        (S_ISREG(st.st_mode) && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0)) {
        int e = errno;
        close(fd);
        orr_fail(err, ORR_ERR_OPEN, "%s: cannot open: %s", path, strerror(e));
        errno = e;
        return ORR_ERR_OPEN;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return refuse_kind(path, st.st_mode, err);
    }
    *out = fdopen(fd, "rb");
    if (!*out) {
        int e = errno;
        close(fd);
        orr_fail(err, ORR_ERR_OPEN, "%s: cannot open: %s", path, strerror(e));
        errno = e;
        return ORR_ERR_OPEN;
    }
    return ORR_OK;
}

static orr_status slurp(const char *path, size_t max_bytes, orr_buffer *out, orr_error *err)
{
    FILE *f;
    orr_status s = orr_open_input(path, &f, err);
    if (s != ORR_OK)
        return s;

    size_t cap = 1 << 16, size = 0;
    char *data = malloc(cap + 1);
    if (!data) {
        fclose(f);
        return orr_fail(err, ORR_ERR_NOMEM, "%s: out of memory reading file", path);
    }
    for (;;) {
        if (size == cap) {
            if (cap >= max_bytes) {
                free(data);
                fclose(f);
                return orr_fail(err, ORR_ERR_INPUT, "%s: file is larger than the %zu bytes allowed",
                                path, max_bytes);
            }
            size_t ncap = cap * 2 > max_bytes ? max_bytes : cap * 2;
            char *nd = realloc(data, ncap + 1);
            if (!nd) {
                free(data);
                fclose(f);
                return orr_fail(err, ORR_ERR_NOMEM, "%s: out of memory reading file", path);
            }
            data = nd;
            cap = ncap;
        }
        size_t got = fread(data + size, 1, cap - size, f);
        size += got;
        if (got == 0) {
            if (ferror(f)) {
                int e = errno;
                free(data);
                fclose(f);
                return orr_fail(err, ORR_ERR_OPEN, "%s: read error: %s", path, strerror(e));
            }
            break;
        }
    }
    fclose(f);
    data[size] = '\0';
    out->data = data;
    out->size = size;
    return ORR_OK;
}

/* The output buffer grown by doubling up to max_bytes; ORR_OK or the
 * failure (too large, no memory). */
static orr_status grow_output(const char *path, char **data, size_t *cap, size_t max_bytes,
                              orr_error *err)
{
    if (*cap >= max_bytes)
        return orr_fail(err, ORR_ERR_INPUT,
                        "%s: decompressed content is larger than the %zu bytes allowed", path,
                        max_bytes);
    size_t ncap = *cap * 2 > max_bytes ? max_bytes : *cap * 2;
    char *nd = realloc(*data, ncap + 1);
    if (!nd)
        return orr_fail(err, ORR_ERR_NOMEM, "%s: out of memory decompressing", path);
    *data = nd;
    *cap = ncap;
    return ORR_OK;
}

/* After a stream's end: what follows it, if anything. gzip(1) reads every
 * member of a file made by `cat a.gz b.gz` (RFC 1952 section 2.2), so the
 * next gzip member is read too; anything else after the compressed data
 * (another format, garbage) is refused: reading only the first member
 * would silently drop the rest of the work unit. *more: 1 to go on (zs
 * reset), 0 at the end of the input. */
static orr_status next_member(const char *path, const orr_buffer *in, z_stream *zs, int *more,
                              orr_error *err)
{
    *more = 0;
    if (zs->avail_in == 0)
        return ORR_OK;
    const size_t at = in->size - zs->avail_in;
    if (!is_gzip((const unsigned char *)in->data + at, zs->avail_in))
        return orr_fail(err, ORR_ERR_PARSE,
                        "%s: %zu bytes of trailing data after the compressed data (from byte "
                        "%zu): not another gzip member", path, (size_t)zs->avail_in, at);
    if (inflateReset(zs) != Z_OK)
        return orr_fail(err, ORR_ERR_NOMEM, "%s: cannot restart decompression", path);
    *more = 1;
    return ORR_OK;
}

/* Inflates a zlib stream or every member of a gzip file (next_member). */
static orr_status inflate_buffer(const char *path, const orr_buffer *in, size_t max_bytes,
                                 orr_buffer *out, orr_error *err)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    /* 15 + 32: accept both gzip and zlib headers, detected by zlib. */
    if (inflateInit2(&zs, 15 + 32) != Z_OK)
        return orr_fail(err, ORR_ERR_NOMEM, "%s: cannot start decompression", path);

    size_t cap = in->size * 4 + 1024, size = 0;
    if (cap > max_bytes)
        cap = max_bytes;
    char *data = malloc(cap + 1);
    if (!data) {
        inflateEnd(&zs);
        return orr_fail(err, ORR_ERR_NOMEM, "%s: out of memory decompressing", path);
    }
    zs.next_in = (Bytef *)in->data;
    zs.avail_in = (uInt)in->size;
    orr_status s = ORR_OK;
    for (int more = 1; more && s == ORR_OK;) {
        if (size == cap && (s = grow_output(path, &data, &cap, max_bytes, err)) != ORR_OK)
            break;
        size_t room = cap - size;
        if (room > UINT_MAX)
            room = UINT_MAX;
        zs.next_out = (Bytef *)data + size;
        zs.avail_out = (uInt)room;
        const int rc = inflate(&zs, Z_NO_FLUSH);
        size = (size_t)((char *)zs.next_out - data);
        if (rc == Z_STREAM_END)
            s = next_member(path, in, &zs, &more, err);
        else if (rc == Z_BUF_ERROR && zs.avail_in == 0)
            s = orr_fail(err, ORR_ERR_PARSE, "%s: compressed data is truncated", path);
        else if (rc != Z_OK && rc != Z_BUF_ERROR)
            s = orr_fail(err, ORR_ERR_PARSE, "%s: compressed data is corrupt (%s)", path,
                         zs.msg ? zs.msg : "invalid data");
    }
    inflateEnd(&zs);
    if (s != ORR_OK) {
        free(data);
        return s;
    }
    data[size] = '\0';
    out->data = data;
    out->size = size;
    return ORR_OK;
}

orr_status orr_read_file(const char *path, size_t max_bytes, int text, orr_buffer *out,
                         orr_error *err)
{
    orr_buffer raw = {0};
    out->data = NULL;
    out->size = 0;
    orr_status s = slurp(path, max_bytes, &raw, err);
    if (s != ORR_OK)
        return s;

    const unsigned char *p = (const unsigned char *)raw.data;
    if (is_gzip(p, raw.size) || is_zlib(p, raw.size)) {
        s = inflate_buffer(path, &raw, max_bytes, out, err);
        orr_buffer_free(&raw);
        if (s != ORR_OK)
            return s;
    } else {
        *out = raw;
    }

    if (text && memchr(out->data, '\0', out->size)) {
        const char *nul = memchr(out->data, '\0', out->size);
        int line = 1;
        for (const char *q = out->data; q < nul; q++)
            line += *q == '\n';
        orr_buffer_free(out);
        return orr_fail(err, ORR_ERR_PARSE, "%s:%d: binary data (NUL byte) in a text file",
                        path, line);
    }
    return ORR_OK;
}

void orr_buffer_free(orr_buffer *b)
{
    if (b) {
        free(b->data);
        b->data = NULL;
        b->size = 0;
    }
}

void orr_lines_init(orr_lines *it, const char *path, const orr_buffer *buf)
{
    it->path = path;
    it->pos = buf->data;
    it->end = buf->data + buf->size;
    it->line = 0;
}

int orr_lines_next(orr_lines *it, const char **line, size_t *len)
{
    if (it->pos >= it->end)
        return 0;
    const char *start = it->pos;
    const char *nl = memchr(start, '\n', (size_t)(it->end - start));
    const char *stop = nl ? nl : it->end;
    it->pos = nl ? nl + 1 : it->end;
    if (stop > start && stop[-1] == '\r')
        stop--;
    it->line++;
    *line = start;
    *len = (size_t)(stop - start);
    return 1;
}

static void trim(const char **s, size_t *len)
{
    while (*len && isspace((unsigned char)**s)) {
        (*s)++;
        (*len)--;
    }
    while (*len && isspace((unsigned char)(*s)[*len - 1]))
        (*len)--;
}

/* The token without surrounding blanks, NUL-terminated in tmp for strto*. */
static int copy_token(const char *s, size_t len, char *tmp, size_t size)
{
    trim(&s, &len);
    if (len == 0 || len >= size)
        return -1;
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    return 0;
}

int orr_parse_double(const char *s, size_t len, double *out)
{
    char tmp[128];
    if (copy_token(s, len, tmp, sizeof tmp) != 0)
        return -1;
    char *endp;
    errno = 0;
    double v = strtod(tmp, &endp);
    if (*endp != '\0')
        return -1;
    /* Overflow to infinity is reported; gradual underflow to 0 is harmless. */
    if (errno == ERANGE && (v > 1.0 || v < -1.0))
        return -1;
    *out = v;
    return 0;
}

int orr_parse_long(const char *s, size_t len, long *out)
{
    char tmp[64];
    if (copy_token(s, len, tmp, sizeof tmp) != 0)
        return -1;
    char *endp;
    errno = 0;
    long v = strtol(tmp, &endp, 10);
    if (*endp != '\0' || errno == ERANGE)
        return -1;
    *out = v;
    return 0;
}

int orr_parse_double_list(const char *s, size_t len, double *out, int max)
{
    int n = 0;
    size_t i = 0;
    while (i < len) {
        while (i < len && (isspace((unsigned char)s[i]) || s[i] == ','))
            i++;
        if (i >= len)
            break;
        size_t start = i;
        while (i < len && !isspace((unsigned char)s[i]) && s[i] != ',')
            i++;
        if (n >= max)
            return -1 - max;
        if (orr_parse_double(s + start, i - start, &out[n]) != 0)
            return -1 - n;
        n++;
    }
    return n;
}

uint64_t orr_hash64(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* ---- output files ---- */

/* The folder part of path ("." for a bare name), into dir; 0 if it fits. */
static int folder_of(const char *path, char *dir, size_t size)
{
    const char *slash = strrchr(path, '/');
    size_t n = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);
    if (n + 2 > size)
        return -1;
    if (n == 0)
        strcpy(dir, ".");
    else {
        memcpy(dir, path, n);
        dir[n] = '\0';
    }
    return 0;
}

orr_status orr_output_check(const char *path, orr_error *err)
{
    char dir[4096];
    struct stat st;
    if (!*path)
        return orr_fail(err, ORR_ERR_WRITE, "cannot write an output file with an empty name");
    if (folder_of(path, dir, sizeof dir) != 0)
        return orr_fail(err, ORR_ERR_WRITE, "%.200s...: cannot write: %s", path,
                        strerror(ENAMETOOLONG));
    if (stat(dir, &st) != 0)
        return orr_fail(err, ORR_ERR_WRITE, "%s: cannot write: folder %s: %s", path, dir,
                        strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return orr_fail(err, ORR_ERR_WRITE, "%s: cannot write: %s: %s", path, dir,
                        strerror(ENOTDIR));
    if (access(dir, W_OK | X_OK) != 0)
        return orr_fail(err, ORR_ERR_WRITE, "%s: cannot write in folder %s: %s", path, dir,
                        strerror(errno));
    /* The output replaces PATH by a rename: over a device (/dev/null) or a
     * directory that would be wrong or fail only after the computing. */
    if (stat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode))
            return orr_fail(err, ORR_ERR_WRITE, "%s: cannot write: it is %s, not a regular file",
                            path, file_kind(st.st_mode));
    } else if (errno != ENOENT) {
        return orr_fail(err, ORR_ERR_WRITE, "%s: cannot write: %s", path, strerror(errno));
    }
    return ORR_OK;
}

orr_status orr_output_open(orr_output *o, const char *path, const char *suffix, orr_error *err)
{
    o->f = NULL;
    o->path[0] = o->tmp[0] = '\0';
    if (!suffix || !*suffix)
        return orr_fail(err, ORR_ERR_INTERNAL, "%s: an output needs a temporary suffix", path);
    if (strlen(path) >= sizeof o->path || strlen(path) + strlen(suffix) >= sizeof o->tmp)
        return orr_fail(err, ORR_ERR_WRITE, "%.200s...: cannot write: %s", path,
                        strerror(ENAMETOOLONG));
    orr_status s = orr_output_check(path, err);
    if (s != ORR_OK)
        return s;
    snprintf(o->path, sizeof o->path, "%s", path);
    snprintf(o->tmp, sizeof o->tmp, "%s%s", path, suffix);
    /* A temporary left by a killed run, or a symlink planted there to make
     * us write through it: either way it goes, and O_EXCL|O_NOFOLLOW then
     * refuses anything that appears in its place meanwhile. */
    if (unlink(o->tmp) != 0 && errno != ENOENT)
        return orr_fail(err, ORR_ERR_WRITE, "%s: cannot remove the old temporary file: %s", o->tmp,
                        strerror(errno));
    int fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return orr_fail(err, ORR_ERR_WRITE, "%s: cannot create: %s", o->tmp, strerror(errno));
    o->f = fdopen(fd, "wb");
    if (!o->f) {
        int e = errno;
        close(fd);
        unlink(o->tmp);
        return orr_fail(err, ORR_ERR_WRITE, "%s: cannot create: %s", o->tmp, strerror(e));
    }
    return ORR_OK;
}

orr_status orr_output_commit(orr_output *o, orr_error *err)
{
    if (!o->f)
        return orr_fail(err, ORR_ERR_INTERNAL, "%s: output file is not open", o->path);
    FILE *f = o->f;
    o->f = NULL;
    /* fflush first: it retries what a failed write left buffered and so
     * recovers its errno; an error flag that survives it was a write that
     * failed without leaving one (EIO stands for it). */
    int e = 0;
    if (fflush(f) != 0)
        e = errno;
    else if (ferror(f))
        e = EIO;
    else if (fsync(fileno(f)) != 0)
        e = errno;
    if (fclose(f) != 0 && !e)
        e = errno;
    if (!e && rename(o->tmp, o->path) != 0)
        e = errno;
    if (e) {
        unlink(o->tmp);
        return orr_fail(err, ORR_ERR_WRITE, "%s: cannot write: %s", o->path, strerror(e));
    }
    return ORR_OK;
}

void orr_output_abort(orr_output *o)
{
    if (o && o->f) {
        fclose(o->f);
        o->f = NULL;
        unlink(o->tmp);
    }
}
