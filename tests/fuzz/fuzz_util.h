/* What every fuzz target shares (tests/fuzz/README.md): the readers take
 * paths, so an input is written to a file in a private folder first
 * (made once per process, removed at exit), and inputs that stand for
 * several files hold them one after another, separated by FUZZ_SEP. */
#ifndef ORRERY_FUZZ_UTIL_H
#define ORRERY_FUZZ_UTIL_H

#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Between the files of one input: a line that no real input has. */
#define FUZZ_SEP "\n--8<--\n"
#define FUZZ_SEP_LEN (sizeof FUZZ_SEP - 1)
#define FUZZ_MAX_PARTS 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* each target uses some of these */
#define FUZZ_FN static __attribute__((unused))

static char fuzz_folder[PATH_MAX];

FUZZ_FN void fuzz_cleanup(void)
{
    /* the files are the targets' own, all at the top of the folder */
    static const char *const names[] = {"in0", "in1", "in2", "in3", "in4", "in5", "in6", "in7",
                                        "out", "out.partial", "ck", "ck.tmp", "out2",
                                        "out2.partial"};
    char path[PATH_MAX + 16];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", fuzz_folder, names[i]);
        unlink(path);
    }
    rmdir(fuzz_folder);
}

/* FOLDER/name, the folder made on the first call. */
FUZZ_FN const char *fuzz_path(const char *name, char *buf, size_t size)
{
    if (!fuzz_folder[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(fuzz_folder, sizeof fuzz_folder, "%s/orrery-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(fuzz_folder)) {
            perror("fuzz: mkdtemp");
            abort();
        }
        atexit(fuzz_cleanup);
    }
    snprintf(buf, size, "%s/%s", fuzz_folder, name);
    return buf;
}

/* Writes data to FOLDER/name (replacing it) and returns that path. */
FUZZ_FN const char *fuzz_file(const char *name, const void *data, size_t size, char *buf,
                             size_t bufsize)
{
    const char *path = fuzz_path(name, buf, bufsize);
    unlink(path);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) {
        perror(path);
        abort();
    }
    const char *p = data;
    while (size > 0) {
        ssize_t n = write(fd, p, size);
        if (n <= 0) {
            perror(path);
            abort();
        }
        p += n;
        size -= (size_t)n;
    }
    close(fd);
    return path;
}

/* Splits data at FUZZ_SEP into at most max parts; returns their count
 * (at least 1: no separator, one part). */
FUZZ_FN int fuzz_split(const uint8_t *data, size_t size, const uint8_t **part, size_t *len, int max)
{
    int n = 0;
    const uint8_t *p = data, *end = data + size;
    while (n < max - 1) {
        const uint8_t *q = NULL;
        for (const uint8_t *s = p; s + FUZZ_SEP_LEN <= end; s++)
            if (*s == FUZZ_SEP[0] && memcmp(s, FUZZ_SEP, FUZZ_SEP_LEN) == 0) {
                q = s;
                break;
            }
        if (!q)
            break;
        part[n] = p;
        len[n++] = (size_t)(q - p);
        p = q + FUZZ_SEP_LEN;
    }
    part[n] = p;
    len[n++] = (size_t)(end - p);
    return n;
}

/* Words of s[0..len) split at NUL bytes and newlines, copied into buf (of
 * bufsize bytes); returns the count, at most max. */
FUZZ_FN int fuzz_words(const uint8_t *s, size_t len, char *buf, size_t bufsize, char **words, int max)
{
    int n = 0;
    size_t used = 0;
    size_t i = 0;
    while (i < len && n < max) {
        size_t j = i;
        while (j < len && s[j] != '\0' && s[j] != '\n')
            j++;
        if (used + (j - i) + 1 > bufsize)
            break;
        memcpy(buf + used, s + i, j - i);
        buf[used + (j - i)] = '\0';
        words[n++] = buf + used;
        used += j - i + 1;
        i = j + 1;
    }
    return n;
}

#endif
