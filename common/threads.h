/* A small fixed pool of worker threads (the CPU backend's, a spectral
 * plan's), asleep on a condition variable between runs. run() hands out
 * task indices 0..n-1 to the workers and the calling thread, and returns
 * when all are done. Which thread runs a task is unspecified, so a task must
 * write only its own output: results then do not depend on the thread
 * count. Workers block SIGALRM (BOINC's timer signal belongs to the main
 * thread) and pause between tasks while the client has the task suspended. */
#ifndef ORRERY_THREADS_H
#define ORRERY_THREADS_H

#include "orrery.h"

/* The most threads a CPU run starts: --nthreads' bound and the cap on
 * BOINC's ncpus. */
#define ORR_MAX_THREADS 1024

typedef struct orr_pool orr_pool;
typedef void (*orr_pool_task)(void *ctx, int task);

/* What the workers ask between tasks: while it returns non-zero they sleep
 * (0.1 s at a time). The runtime sets it to "the client suspended the
 * task" (orr_runtime_init); unset, nobody pauses. */
void orr_pool_pause_while(int (*suspended)(void));

/* threads: total, including the caller (1 = no workers). */
orr_status orr_pool_create(int threads, orr_pool **out, orr_error *err);
int orr_pool_threads(const orr_pool *p);
void orr_pool_run(orr_pool *p, int n_tasks, orr_pool_task fn, void *ctx);
void orr_pool_destroy(orr_pool *p);

#endif
