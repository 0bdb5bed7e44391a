/* Fuzz target: the .npy reader (common/io/npy.c), orr_npy_read on the
 * input as a file. What it accepts must be what it promises (1 to 4
 * dimensions, count = the product of the shape) and must survive a round
 * trip: written with orr_npy_write and read again, the same array. */
#include "fuzz_util.h"

#include "io/io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char in[PATH_MAX + 16], out[PATH_MAX + 16];
    fuzz_file("in0", data, size, in, sizeof in);
    fuzz_path("out", out, sizeof out);
    orr_error err;
    orr_error_clear(&err);
    orr_npy a, b;
    if (orr_npy_read(in, &a, &err) != ORR_OK)
        return 0;
    size_t count = 1;
    if (a.ndim < 1 || a.ndim > 4 || (unsigned)a.dtype > ORR_NPY_C16 || !a.data)
        abort();
    for (int i = 0; i < a.ndim; i++) {
        if (a.shape[i] < 0)
            abort();
        count *= (size_t)a.shape[i];
    }
    if (count != a.count)
        abort();
    const size_t bytes = a.count * orr_npy_item_size(a.dtype);
    if (orr_npy_write(out, a.dtype, a.ndim, a.shape, a.data, &err) != ORR_OK ||
        orr_npy_read(out, &b, &err) != ORR_OK) {
        fprintf(stderr, "fuzz_npy: round trip failed: %s\n", err.message);
        abort();
    }
    if (b.dtype != a.dtype || b.ndim != a.ndim || b.count != a.count ||
        memcmp(b.shape, a.shape, sizeof a.shape[0] * (size_t)a.ndim) != 0 ||
        memcmp(b.data, a.data, bytes) != 0)
        abort();
    orr_npy_free(&a);
    orr_npy_free(&b);
    return 0;
}
