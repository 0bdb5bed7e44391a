/* What a backend may accelerate of the separation kind. A backend that
 * attaches none (or leaves an op NULL) gets the scalar reference
 * (integrand.c): every backend has a correct fallback and a reference to
 * be tested against. */
#ifndef ORRERY_SEPARATION_OPS_H
#define ORRERY_SEPARATION_OPS_H

#include "../backend.h"
#include "separation.h"

#define SEP_KIND_NAME "separation"

typedef struct {
    /* Chunks per call that keep every thread or SM busy (NULL or < 1: 1);
     * the kind never sends fewer. */
    int (*min_batch)(void *state);

    /* Integral: the partial sums of chunks first..first+count-1 of one
     * area (SEP_CHUNK_MU), each summed from zero, into out[0..count). */
    orr_status (*integral_chunks)(void *state, const sep_model_consts *mc, const sep_setup *s,
                                  int area, int first, int count, sep_partial *out,
                                  orr_error *err);

    /* Per-star probabilities for stars begin..end-1: bg_prob[i] and
     * st_prob[i * n_streams + s], including the factor K* (no integrals). */
    orr_status (*star_probs)(void *state, const sep_model_consts *mc, const sep_setup *s,
                             const sep_stars *stars, int begin, int end, double *bg_prob,
                             double *st_prob, orr_error *err);
} sep_ops;

/* The scalar reference, op by op (state unused). */
extern const sep_ops sep_reference_ops;

/* A backend's separation ops with the reference filling what it leaves
 * NULL, and their state. */
typedef struct {
    sep_ops ops;
    void *state;
} sep_bound_ops;
orr_status sep_ops_of(orr_backend *be, sep_bound_ops *out, orr_error *err);

#endif
