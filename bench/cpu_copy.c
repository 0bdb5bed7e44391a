/* The host's copy bandwidth, the yardstick of memory-bound CPU kernels
 * (bench/fdtd/bench.sh): T threads each copy their share of a 1 GiB array
 * into another, best of 7; bytes moved count the read and the write. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BYTES (1UL << 30)

typedef struct {
    char *dst;
    const char *src;
    size_t n;
} share;

static void *copy_share(void *arg)
{
    share *s = arg;
    memcpy(s->dst, s->src, s->n);
    return NULL;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv)
{
    const int threads = argc > 1 ? atoi(argv[1]) : 1;
    char *a = malloc(BYTES), *b = malloc(BYTES);
    if (threads < 1 || threads > 1024 || !a || !b) {
        fprintf(stderr, "usage: cpu_copy THREADS (1..1024); needs 2 GiB\n");
        return 1;
    }
    memset(a, 1, BYTES);
    memset(b, 2, BYTES);
    pthread_t *t = malloc(threads * sizeof *t);
    share *s = malloc(threads * sizeof *s);
    double best = 1e30;
    for (int rep = 0; rep < 7; rep++) {
        const double t0 = now();
        for (int i = 0; i < threads; i++) {
            const size_t lo = BYTES / threads * i, hi = i == threads - 1 ? BYTES : BYTES / threads * (i + 1);
            s[i] = (share){b + lo, a + lo, hi - lo};
            pthread_create(&t[i], NULL, copy_share, &s[i]);
        }
        for (int i = 0; i < threads; i++)
            pthread_join(t[i], NULL);
        const double dt = now() - t0;
        best = dt < best ? dt : best;
    }
    printf("%.1f GB/s copy bandwidth (read + write), %d threads\n", 2.0 * BYTES / best / 1e9, threads);
    free(a);
    free(b);
    free(t);
    free(s);
    return 0;
}
