/* Fuzz target: the star catalogue (common/separation/stars.c) as the app
 * reads it: sep_stars_load (plain, gzip or zlib; io.c). Every star read
 * must satisfy what the loader promises (finite, -90 <= b <= 90, r > 0). */
#include <math.h>

#include "fuzz_util.h"

#include "io/io.h"
#include "separation/separation.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[PATH_MAX + 16];
    fuzz_file("in0", data, size, path, sizeof path);
    orr_error err;
    orr_error_clear(&err);
    sep_stars s;
    memset(&s, 0, sizeof s);
    if (sep_stars_load(path, &s, &err) != ORR_OK)
        return 0;
    if (s.n < 1)
        abort();
    for (int i = 0; i < s.n; i++)
        if (!isfinite(s.l[i]) || !(s.b[i] >= -90 && s.b[i] <= 90) || !(s.r[i] > 0) ||
            !isfinite(s.r[i]))
            abort();
    sep_stars_free(&s);
    return 0;
}
