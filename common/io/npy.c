/* numpy's .npy format 1.0 (the header: magic, version, a little-endian
 * 16-bit length and a Python dict literal with descr, fortran_order and
 * shape, padded with blanks and a newline), for the spectral tools. Only
 * what they exchange: little-endian float32/64 and complex64/128 in C
 * order. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io.h"

static const struct {
    const char *descr, *name;
    size_t size;
} dtypes[] = {
    [ORR_NPY_F4] = {"<f4", "float32", 4},
    [ORR_NPY_F8] = {"<f8", "float64", 8},
    [ORR_NPY_C8] = {"<c8", "complex64", 8},
    [ORR_NPY_C16] = {"<c16", "complex128", 16},
};

const char *orr_npy_dtype_name(orr_npy_dtype t) { return dtypes[t].name; }
size_t orr_npy_item_size(orr_npy_dtype t) { return dtypes[t].size; }

void orr_npy_free(orr_npy *a)
{
    free(a->data);
    a->data = NULL;
}

static int host_is_little_endian(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 1;
}

/* The value of 'key' in the header dict: a pointer just after "'key':". */
static const char *dict_value(const char *h, const char *key)
{
    char quoted[32];
    snprintf(quoted, sizeof quoted, "'%s'", key);
    const char *p = strstr(h, quoted);
    if (!p)
        return NULL;
    p += strlen(quoted);
    while (*p == ' ')
        p++;
    if (*p != ':')
        return NULL;
    p++;
    while (*p == ' ')
        p++;
    return p;
}

/* The magic, the version (1.0 only) and the header's length. */
static orr_status read_preamble(FILE *f, const char *path, size_t *hlen, orr_error *err)
{
    unsigned char pre[10];
    if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0)
        return orr_fail(err, ORR_ERR_PARSE, "%s: not a .npy file (no \\x93NUMPY magic)", path);
    if (pre[6] != 1)
        return orr_fail(err, ORR_ERR_INPUT, "%s: .npy format version %d.%d (1.0 is read)", path,
                        pre[6], pre[7]);
    *hlen = pre[8] | (size_t)pre[9] << 8;
    return ORR_OK;
}

static orr_status parse_descr(const char *h, const char *path, orr_npy *out, orr_error *err)
{
    const char *v = dict_value(h, "descr");
    if (!v)
        return orr_fail(err, ORR_ERR_INPUT, "%s: header: no 'descr'", path);
    int found = -1;
    for (int t = 0; t < 4; t++) {
        char want[16];
        snprintf(want, sizeof want, "'%s'", dtypes[t].descr);
        if (strncmp(v, want, strlen(want)) == 0)
            found = t;
    }
    if (found < 0) {
        char got[24] = "";
        sscanf(v, "%23[^,}]", got);
        return orr_fail(err, ORR_ERR_INPUT,
                        "%s: header field 'descr': %s (expected float32, float64, complex64 or "
                        "complex128, little-endian: '<f4', '<f8', '<c8', '<c16')",
                        path, got);
    }
    out->dtype = (orr_npy_dtype)found;
    return ORR_OK;
}

/* One dimension at *v: a whole number from 0 to LONG_MAX, then ',' or ')'
 * (blanks allowed). Advances *v past the number; 0 if it is one. */
static int parse_dim(const char **v, long *n)
{
    char *end;
    errno = 0;
    long x = strtol(*v, &end, 10);
    if (end == *v || errno == ERANGE || x < 0)
        return -1;
    const char *p = end;
    while (*p == ' ')
        p++;
    if (*p != ',' && *p != ')')
        return -1;
    *n = x;
    *v = end;
    return 0;
}

/* The shape tuple, "(3, 4)" or "(3,)": up to 4 dimensions, at least one,
 * and an element count that fits a size_t. */
static orr_status parse_shape(const char *h, const char *path, orr_npy *out, orr_error *err)
{
    const char *v = dict_value(h, "shape");
    if (!v || *v != '(')
        return orr_fail(err, ORR_ERR_INPUT, "%s: header field 'shape' missing or not a tuple", path);
    v++;
    out->count = 1;
    while (*v && *v != ')') {
        while (*v == ' ' || *v == ',')
            v++;
        if (*v == ')')
            break;
        if (out->ndim >= 4)
            return orr_fail(err, ORR_ERR_INPUT, "%s: header field 'shape': more than 4 dimensions",
                            path);
        long n;
        if (parse_dim(&v, &n) != 0)
            return orr_fail(err, ORR_ERR_INPUT,
                            "%s: header field 'shape': dimension %d is not a whole number from 0 "
                            "to %ld",
                            path, out->ndim + 1, LONG_MAX);
        out->shape[out->ndim++] = n;
        if (__builtin_mul_overflow(out->count, (size_t)n, &out->count))
            return orr_fail(err, ORR_ERR_INPUT,
                            "%s: header field 'shape': the number of elements overflows", path);
    }
    if (*v != ')')
        return orr_fail(err, ORR_ERR_INPUT, "%s: header field 'shape': the tuple is not closed", path);
    if (out->ndim == 0)
        return orr_fail(err, ORR_ERR_INPUT, "%s: header field 'shape': a scalar, not an array", path);
    return ORR_OK;
}

/* The header dict of hlen bytes: dtype, C order and shape into out. */
static orr_status read_header(FILE *f, const char *path, size_t hlen, orr_npy *out, orr_error *err)
{
    char *h = malloc(hlen + 1);
    if (!h)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    orr_status st = ORR_OK;
    if (fread(h, 1, hlen, f) != hlen)
        st = orr_fail(err, ORR_ERR_PARSE, "%s: header truncated", path);
    h[hlen] = '\0';
    if (st == ORR_OK)
        st = parse_descr(h, path, out, err);
    const char *v;
    if (st == ORR_OK && (!(v = dict_value(h, "fortran_order")) || strncmp(v, "False", 5) != 0))
        st = orr_fail(err, ORR_ERR_INPUT, "%s: header field 'fortran_order': only C order (False) is read",
                      path);
    if (st == ORR_OK)
        st = parse_shape(h, path, out, err);
    free(h);
    return st;
}

/* "(3, 4)" for messages. */
static void shape_text(const orr_npy *a, char *buf, size_t size)
{
    int n = snprintf(buf, size, "(");
    for (int i = 0; i < a->ndim && n > 0 && (size_t)n < size; i++)
        n += snprintf(buf + n, size - (size_t)n, "%ld%s", a->shape[i],
                      i + 1 < a->ndim ? ", " : a->ndim == 1 ? ",)" : ")");
}

/* The data's size in bytes as the header says, checked against the file's
 * (the bytes after the header) before anything is allocated: a few bytes
 * must not make us ask for gigabytes. */
static orr_status check_size(FILE *f, const char *path, const orr_npy *a, size_t *bytes,
                             orr_error *err)
{
    char shape[128];
    struct stat st;
    shape_text(a, shape, sizeof shape);
    if (__builtin_mul_overflow(a->count, dtypes[a->dtype].size, bytes))
        return orr_fail(err, ORR_ERR_INPUT, "%s: shape %s of %s: the size in bytes overflows", path,
                        shape, dtypes[a->dtype].name);
    long here = ftell(f);
    if (here < 0 || fstat(fileno(f), &st) != 0)
        return orr_fail(err, ORR_ERR_OPEN, "%s: cannot read: %s", path, strerror(errno));
    const unsigned long long have =
        st.st_size > here ? (unsigned long long)st.st_size - (unsigned long long)here : 0;
    if (have != *bytes)
        return orr_fail(err, ORR_ERR_INPUT,
                        "%s: %s: shape %s of %s needs %zu bytes of data, the file has %llu after "
                        "its header",
                        path, have < *bytes ? "data truncated" : "more data than the shape says",
                        shape, dtypes[a->dtype].name, *bytes, have);
    return ORR_OK;
}

/* The data, exactly as many bytes as the shape says. */
static orr_status read_data(FILE *f, const char *path, orr_npy *out, orr_error *err)
{
    size_t bytes;
    orr_status st = check_size(f, path, out, &bytes, err);
    if (st != ORR_OK)
        return st;
    out->data = malloc(bytes ? bytes : 1);
    if (!out->data)
        return orr_fail(err, ORR_ERR_NOMEM, "%s: out of memory for %zu bytes", path, bytes);
    /* Checked again: the file may change while it is read. */
    if (fread(out->data, 1, bytes, f) != bytes)
        return orr_fail(err, ORR_ERR_INPUT, "%s: data truncated (the shape needs %zu bytes)", path,
                        bytes);
    if (fgetc(f) != EOF)
        return orr_fail(err, ORR_ERR_INPUT, "%s: more data than the shape says", path);
    return ORR_OK;
}

orr_status orr_npy_read(const char *path, orr_npy *out, orr_error *err)
{
    memset(out, 0, sizeof *out);
    FILE *f;
    orr_status st = orr_open_input(path, &f, err);
    if (st != ORR_OK)
        return st;
    size_t hlen = 0;
    st = read_preamble(f, path, &hlen, err);
    if (st == ORR_OK)
        st = read_header(f, path, hlen, out, err);
    if (st == ORR_OK && !host_is_little_endian())
        st = orr_fail(err, ORR_ERR_UNSUPPORTED, "%s: this host is big-endian", path);
    if (st == ORR_OK)
        st = read_data(f, path, out, err);
    fclose(f);
    if (st != ORR_OK)
        orr_npy_free(out);
    return st;
}

orr_status orr_npy_write(const char *path, orr_npy_dtype dtype, int ndim, const long *shape,
                         const void *data, orr_error *err)
{
    char dict[256], dims[160] = "";
    size_t count = 1;
    int overflow = 0;
    for (int i = 0; i < ndim; i++) {
        char one[24];
        snprintf(one, sizeof one, "%ld,%s", shape[i], ndim > 1 && i + 1 < ndim ? " " : "");
        strncat(dims, one, sizeof dims - strlen(dims) - 1);
        overflow |= shape[i] < 0 || __builtin_mul_overflow(count, (size_t)shape[i], &count);
    }
    if (ndim > 1)
        dims[strlen(dims) - 1] = '\0';   /* (3, 4) but (3,) */
    int len = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
                       dtypes[dtype].descr, dims);
    /* pad so the data starts at a multiple of 64 bytes, ending in '\n' */
    const int total = ((10 + len + 1 + 63) / 64) * 64, hlen = total - 10;
    while (len < hlen - 1)
        dict[len++] = ' ';
    dict[len++] = '\n';
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hlen & 0xff),
                             (unsigned char)(hlen >> 8)};
    size_t bytes;
    if (overflow || __builtin_mul_overflow(count, dtypes[dtype].size, &bytes))
        return orr_fail(err, ORR_ERR_INTERNAL, "%s: the array's size in bytes overflows", path);
    orr_output o;
    orr_status st = orr_output_open(&o, path, ".partial", err);
    if (st != ORR_OK)
        return st;
    if (fwrite(pre, 1, 10, o.f) != 10 || fwrite(dict, 1, (size_t)hlen, o.f) != (size_t)hlen ||
        fwrite(data, 1, bytes, o.f) != bytes) {
        int e = errno;
        orr_output_abort(&o);
        return orr_fail(err, ORR_ERR_WRITE, "%s: cannot write: %s", path, strerror(e));
    }
    return orr_output_commit(&o, err);
}
