/* Checkpoint file format (all integers little-endian):
 *   "ORRERYCK"   8 bytes magic
 *   u32          format version
 *   char[16]     app version (PACKAGE_VERSION, NUL-padded)
 *   char[16]     kind ("separation" ...)
 *   u64          work-unit identity hash
 *   u64          payload size
 *   payload
 *   u32          CRC-32 (zlib) of everything above
 * Results must be byte-identical across a resume, so a checkpoint from any
 * other app version is refused rather than trusted. */
#include "checkpoint.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "config.h"
#include "io/io.h"

#define MAGIC "ORRERYCK"
#define NAME_LEN 16
#define HEADER_LEN (8 + 4 + NAME_LEN + NAME_LEN + 8 + 8)
/* A header claiming more is refused before anything is read (a file that
 * size must also exist: the size check below). */
#define MAX_PAYLOAD ((uint64_t)ORR_CHECKPOINT_MAX_PAYLOAD)

/* zlib's crc32 takes at most 4 GiB a call (uInt). */
static uLong crc_of(const unsigned char *header, const unsigned char *payload, size_t size)
{
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, header, HEADER_LEN);
    for (size_t at = 0; at < size;) {
        const size_t part = size - at < ((size_t)1 << 30) ? size - at : (size_t)1 << 30;
        crc = crc32(crc, payload + at, (uInt)part);
        at += part;
    }
    return crc;
}

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static void put_name(unsigned char *p, const char *s)
{
    memset(p, 0, NAME_LEN);
    strncpy((char *)p, s, NAME_LEN - 1);
}

static void build_header(unsigned char *h, const char *kind, uint64_t workunit, uint64_t size)
{
    memcpy(h, MAGIC, 8);
    put_u32(h + 8, ORR_CHECKPOINT_FORMAT);
    put_name(h + 12, PACKAGE_VERSION);
    put_name(h + 12 + NAME_LEN, kind);
    put_u64(h + 12 + 2 * NAME_LEN, workunit);
    put_u64(h + 20 + 2 * NAME_LEN, size);
}

/* The kill test (tests/e2e/kill_test.sh) must land kill -9 inside a write. With
 * ORRERY_TEST_CHECKPOINT_PAUSE_MS set, a write stops that long with the
 * temporary file half written. Sleeps are restarted because BOINC's timer
 * signal interrupts them. */
static void test_pause(FILE *f)
{
    const char *v = getenv("ORRERY_TEST_CHECKPOINT_PAUSE_MS");
    long ms = v ? strtol(v, NULL, 10) : 0;
    if (ms <= 0)
        return;
    fflush(f);
    struct timespec left = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&left, &left) != 0 && errno == EINTR)
        ;
}

orr_status orr_checkpoint_write(const char *path, const char *kind, uint64_t workunit,
                                const void *payload, size_t size, orr_error *err)
{
    unsigned char header[HEADER_LEN], trailer[4];
    build_header(header, kind, workunit, size);
    const uLong crc = crc_of(header, payload, size);
    put_u32(trailer, (uint32_t)crc);

    /* PATH.tmp, fsync'd and renamed: a crash leaves the old checkpoint or
     * the new one, and a symlink planted at PATH.tmp is replaced, not
     * written through. */
    orr_output o;
    orr_status s = orr_output_open(&o, path, ".tmp", err);
    if (s != ORR_OK)
        return s;
    size_t half = size / 2;
    int ok = fwrite(header, 1, HEADER_LEN, o.f) == HEADER_LEN && fwrite(payload, 1, half, o.f) == half;
    if (ok)
        test_pause(o.f);
    ok = ok && fwrite((const char *)payload + half, 1, size - half, o.f) == size - half &&
         fwrite(trailer, 1, 4, o.f) == 4;
    if (!ok) {
        int e = errno;
        orr_output_abort(&o);
        return orr_fail(err, ORR_ERR_WRITE, "%s: cannot write checkpoint: %s", o.tmp, strerror(e));
    }
    return orr_output_commit(&o, err);
}

orr_status orr_checkpoint_read(const char *path, const char *kind, uint64_t workunit,
                               void **payload, size_t *size, orr_error *err)
{
    *payload = NULL;
    *size = 0;
    FILE *f;
    /* No file is the normal first start; anything else in its place (a
     * FIFO would block the open) is reported and ignored. */
    if (orr_open_input(path, &f, err) != ORR_OK) {
        if (errno == ENOENT)
            return orr_fail(err, ORR_ERR_OPEN, "%s: no checkpoint", path);
        if (err)
            err->status = ORR_ERR_CHECKPOINT;   /* its message says why */
        return ORR_ERR_CHECKPOINT;
    }
    unsigned char h[HEADER_LEN], expect[HEADER_LEN];
    orr_status s = ORR_OK;
    unsigned char *buf = NULL;
    if (fread(h, 1, HEADER_LEN, f) != HEADER_LEN) {
        s = orr_fail(err, ORR_ERR_CHECKPOINT, "%s: truncated checkpoint header", path);
        goto done;
    }
    if (memcmp(h, MAGIC, 8) != 0) {
        s = orr_fail(err, ORR_ERR_CHECKPOINT, "%s: not an Orrery checkpoint", path);
        goto done;
    }
    if (get_u32(h + 8) != ORR_CHECKPOINT_FORMAT) {
        s = orr_fail(err, ORR_ERR_CHECKPOINT, "%s: checkpoint format %u, this app reads %d", path,
                     (unsigned)get_u32(h + 8), ORR_CHECKPOINT_FORMAT);
        goto done;
    }
    uint64_t n = get_u64(h + 20 + 2 * NAME_LEN);
    build_header(expect, kind, workunit, n);
    if (memcmp(h + 12, expect + 12, NAME_LEN) != 0) {
        s = orr_fail(err, ORR_ERR_CHECKPOINT, "%s: written by app version %.15s, this is %s", path,
                     (const char *)h + 12, PACKAGE_VERSION);
        goto done;
    }
    if (memcmp(h + 12 + NAME_LEN, expect + 12 + NAME_LEN, NAME_LEN) != 0) {
        s = orr_fail(err, ORR_ERR_CHECKPOINT, "%s: a '%.15s' checkpoint, not '%s'", path,
                     (const char *)h + 12 + NAME_LEN, kind);
        goto done;
    }
    if (get_u64(h + 12 + 2 * NAME_LEN) != workunit) {
        s = orr_fail(err, ORR_ERR_CHECKPOINT, "%s: belongs to another work unit", path);
        goto done;
    }
    if (n > MAX_PAYLOAD) {
        s = orr_fail(err, ORR_ERR_CHECKPOINT, "%s: implausible payload size %llu", path,
                     (unsigned long long)n);
        goto done;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || (uint64_t)st.st_size != HEADER_LEN + n + 4) {
        s = orr_fail(err, ORR_ERR_CHECKPOINT, "%s: checkpoint size does not match its header", path);
        goto done;
    }
    buf = malloc((size_t)n + 4 + 1);
    if (!buf) {
        s = orr_fail(err, ORR_ERR_NOMEM, "%s: out of memory reading checkpoint", path);
        goto done;
    }
    if (fread(buf, 1, (size_t)n + 4, f) != (size_t)n + 4 || fgetc(f) != EOF) {
        s = orr_fail(err, ORR_ERR_CHECKPOINT, "%s: checkpoint size does not match its header", path);
        goto done;
    }
    const uLong crc = crc_of(h, buf, (size_t)n);
    if ((uint32_t)crc != get_u32(buf + n)) {
        s = orr_fail(err, ORR_ERR_CHECKPOINT, "%s: checksum mismatch (corrupt checkpoint)", path);
        goto done;
    }
    *payload = buf;
    *size = (size_t)n;
    buf = NULL;
done:
    free(buf);
    fclose(f);
    return s;
}

double orr_checkpoint_file_bytes(double payload)
{
    return HEADER_LEN + payload + 4;
}
