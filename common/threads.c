/* Worker pool: one mutex, two condition variables and an atomic task
 * counter. A "generation" number tells the workers a new batch started. */
#include "threads.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "orrery.h"

struct orr_pool {
    int threads;
    pthread_t *workers;
    pthread_mutex_t lock;
    pthread_cond_t start, done;
    unsigned long generation;
    int busy;                 /* workers still in the current batch */
    int stopping;
    /* the current batch */
    orr_pool_task fn;
    void *ctx;
    int n_tasks;
    atomic_int next;
};

static int (*_Atomic pause_hook)(void);

void orr_pool_pause_while(int (*suspended)(void)) { atomic_store(&pause_hook, suspended); }

static void pause_while_suspended(void)
{
    int (*suspended)(void) = atomic_load(&pause_hook);
    while (suspended && suspended()) {
        struct timespec t = {0, 100 * 1000 * 1000};
        nanosleep(&t, NULL);
    }
}

static void run_tasks(orr_pool *p)
{
    for (;;) {
        pause_while_suspended();
        int t = atomic_fetch_add(&p->next, 1);
        if (t >= p->n_tasks)
            return;
        p->fn(p->ctx, t);
    }
}

static void *worker_main(void *arg)
{
    orr_pool *p = arg;
    unsigned long seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->stopping && p->generation == seen)
            pthread_cond_wait(&p->start, &p->lock);
        if (p->stopping)
            break;
        seen = p->generation;
        pthread_mutex_unlock(&p->lock);
        run_tasks(p);
        pthread_mutex_lock(&p->lock);
        if (--p->busy == 0)
            pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

orr_status orr_pool_create(int threads, orr_pool **out, orr_error *err)
{
    orr_pool *p = calloc(1, sizeof *p);
    if (threads < 1)
        threads = 1;
    if (!p || !(p->workers = calloc((size_t)threads, sizeof *p->workers))) {
        free(p);
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory for %d threads", threads);
    }
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->start, NULL);
    pthread_cond_init(&p->done, NULL);
    p->threads = 1;

    /* Threads inherit the creator's signal mask: block SIGALRM while
     * creating them so BOINC's timer signal always lands on this thread. */
    sigset_t alarm, old;
    sigemptyset(&alarm);
    sigaddset(&alarm, SIGALRM);
    pthread_sigmask(SIG_BLOCK, &alarm, &old);
    for (int i = 1; i < threads; i++) {
        if (pthread_create(&p->workers[i], NULL, worker_main, p) != 0)
            break;
        p->threads++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (p->threads < threads)
        orr_log("warning: started %d of %d threads", p->threads, threads);
    *out = p;
    return ORR_OK;
}

int orr_pool_threads(const orr_pool *p) { return p->threads; }

void orr_pool_run(orr_pool *p, int n_tasks, orr_pool_task fn, void *ctx)
{
    pthread_mutex_lock(&p->lock);
    p->fn = fn;
    p->ctx = ctx;
    p->n_tasks = n_tasks;
    atomic_store(&p->next, 0);
    p->busy = p->threads - 1;
    p->generation++;
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->lock);

    run_tasks(p);

    pthread_mutex_lock(&p->lock);
    while (p->busy > 0)
        pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
}

void orr_pool_destroy(orr_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stopping = 1;
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->lock);
    for (int i = 1; i < p->threads; i++)
        pthread_join(p->workers[i], NULL);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->start);
    pthread_cond_destroy(&p->done);
    free(p->workers);
    free(p);
}
