/* The spectral plans' worker threads (pool.h). */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>

#include "pool.h"

typedef struct {
    spec_pool *pool;
    int index;   /* the task this thread takes: 1.. */
} pool_thread;

struct spec_pool {
    pthread_mutex_t lock;
    pthread_cond_t wake;   /* a run was posted, or the pool is closing */
    pthread_cond_t done;   /* the last task of a run ended */
    unsigned long run;     /* runs posted so far */
    int tasks;             /* of the current run */
    int pending;           /* its tasks still running on threads */
    int closing;
    spec_pool_task task;
    void *arg;
    int size;              /* tasks a run may have */
    int started;           /* threads running: tasks 1..started */
    pthread_t *threads;
    pool_thread *slots;
};

static void *pool_main(void *arg)
{
    const pool_thread *self = arg;
    spec_pool *pool = self->pool;
    unsigned long seen = 0;
    pthread_mutex_lock(&pool->lock);
    for (;;) {
        while (pool->run == seen && !pool->closing)
            pthread_cond_wait(&pool->wake, &pool->lock);
        if (pool->closing)
            break;
        seen = pool->run;
        if (self->index >= pool->tasks)
            continue;
        const spec_pool_task task = pool->task;
        void *task_arg = pool->arg;
        pthread_mutex_unlock(&pool->lock);
        task(task_arg, self->index);
        pthread_mutex_lock(&pool->lock);
        if (--pool->pending == 0)
            pthread_cond_signal(&pool->done);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

spec_pool *spec_pool_create(int tasks)
{
    if (tasks < 2)
        return NULL;
    spec_pool *pool = calloc(1, sizeof *pool);
    if (!pool)
        return NULL;
    pool->threads = calloc((size_t)tasks, sizeof *pool->threads);
    pool->slots = calloc((size_t)tasks, sizeof *pool->slots);
    if (!pool->threads || !pool->slots || pthread_mutex_init(&pool->lock, NULL) != 0) {
        free(pool->threads);
        free(pool->slots);
        free(pool);
        return NULL;
    }
    pthread_cond_init(&pool->wake, NULL);
    pthread_cond_init(&pool->done, NULL);
    pool->size = tasks;
    /* threads in index order; the first that fails ends the starting */
    for (int i = 1; i < tasks; i++) {
        pool->slots[i] = (pool_thread){pool, i};
        if (pthread_create(&pool->threads[i], NULL, pool_main, &pool->slots[i]) != 0)
            break;
        pool->started = i;
    }
    return pool;
}

void spec_pool_run(spec_pool *pool, int tasks, spec_pool_task task, void *arg)
{
    const int on_threads = !pool ? 0 : tasks - 1 < pool->started ? tasks - 1 : pool->started;
    if (on_threads > 0) {
        pthread_mutex_lock(&pool->lock);
        pool->task = task;
        pool->arg = arg;
        pool->tasks = on_threads + 1;
        pool->pending = on_threads;
        pool->run++;
        pthread_cond_broadcast(&pool->wake);
        pthread_mutex_unlock(&pool->lock);
    }
    task(arg, 0);
    for (int i = on_threads + 1; i < tasks; i++)   /* threads that never started */
        task(arg, i);
    if (on_threads > 0) {
        pthread_mutex_lock(&pool->lock);
        while (pool->pending > 0)
            pthread_cond_wait(&pool->done, &pool->lock);
        pthread_mutex_unlock(&pool->lock);
    }
}

void spec_pool_destroy(spec_pool *pool)
{
    if (!pool)
        return;
    pthread_mutex_lock(&pool->lock);
    pool->closing = 1;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    for (int i = 1; i <= pool->started; i++)
        pthread_join(pool->threads[i], NULL);
    pthread_cond_destroy(&pool->wake);
    pthread_cond_destroy(&pool->done);
    pthread_mutex_destroy(&pool->lock);
    free(pool->threads);
    free(pool->slots);
    free(pool);
}
