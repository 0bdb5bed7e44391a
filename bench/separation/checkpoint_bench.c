/* How long a checkpoint write takes: orr_checkpoint_write of a separation-
 * sized payload (13 KB) into a folder (default: the current one), timed
 * over many writes. Each write is temp file + fsync + rename, so the figure
 * is mostly the file system's fsync. Usage: checkpoint_bench [DIR [N]] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checkpoint.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    int n = argc > 2 ? atoi(argv[2]) : 200;
    enum { PAYLOAD = 12752 };   /* sizeof the separation run state */
    static unsigned char payload[PAYLOAD];
    char path[4096];
    double *t = malloc((size_t)(n > 0 ? n : 1) * sizeof *t);
    if (n <= 0 || !t)
        return 2;
    snprintf(path, sizeof path, "%s/bench_checkpoint", dir);
    for (int i = 0; i < n; i++) {
        orr_error err;
        memset(payload, i, sizeof payload);
        double t0 = now();
        if (orr_checkpoint_write(path, "separation", 42, payload, sizeof payload, &err) != ORR_OK) {
            fprintf(stderr, "checkpoint_bench: %s\n", err.message);
            return 1;
        }
        t[i] = now() - t0;
    }
    remove(path);
    qsort(t, (size_t)n, sizeof *t, by_value);
    printf("checkpoint write, %d bytes payload, %d writes in %s: median %.3f ms, "
           "90th percentile %.3f ms, max %.3f ms\n",
           PAYLOAD, n, dir, 1e3 * t[n / 2], 1e3 * t[n * 9 / 10], 1e3 * t[n - 1]);
    free(t);
    return 0;
}
