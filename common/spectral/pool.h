/* A plan's worker threads, started once and kept asleep between runs (a
 * condition variable, never a spin): a run hands task i of n to worker i,
 * the caller doing task 0. Starting threads on every run cost more than
 * the transforms themselves for batches of a few milliseconds. One run at
 * a time per pool (a plan's scratch is per plan anyway). */
#ifndef ORRERY_SPECTRAL_POOL_H
#define ORRERY_SPECTRAL_POOL_H

typedef struct spec_pool spec_pool;
typedef void (*spec_pool_task)(void *arg, int task);

/* A pool for runs of up to `tasks` tasks (tasks - 1 threads). Returns NULL
 * when tasks < 2 or nothing could be allocated; a thread that cannot be
 * started leaves its tasks to the caller. */
spec_pool *spec_pool_create(int tasks);

/* Runs task(arg, i) for i < tasks (at most the pool's size; a NULL pool
 * runs them all in the caller) and returns when all have ended. */
void spec_pool_run(spec_pool *pool, int tasks, spec_pool_task task, void *arg);

/* Stops and joins the threads; NULL is fine. */
void spec_pool_destroy(spec_pool *pool);

#endif
