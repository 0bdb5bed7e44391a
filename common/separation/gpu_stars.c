/* The host's share of the star sums on a GPU (gpu.h). */
#include "device/gpu.h"

#include "separation/nodes.h"

void orr_gpu_star_nodes(const sep_model_consts *mc, const sep_setup *s, const sep_stars *stars,
                        int begin, int n, sep_direction *dirs, double *r_point, double *qw_r3_N,
                        double *k)
{
    const int cv = s->convolve;
    for (int i = 0; i < n; i++) {
        k[i] = sep_star_r_points(mc, s, stars->r[begin + i], r_point + (size_t)i * cv,
                                 qw_r3_N + (size_t)i * cv);
        sep_direction_of_lb(stars->l[begin + i], stars->b[begin + i], &dirs[i]);
    }
}

void orr_gpu_star_probs(int n_streams, int begin, int n, const double *k, const double *bg,
                        const double *st, double *bg_prob, double *st_prob)
{
    for (int i = 0; i < n; i++) {
        bg_prob[begin + i] = bg[i] * k[i];
        for (int j = 0; j < n_streams; j++)
            st_prob[(size_t)(begin + i) * n_streams + j] = st[(size_t)i * n_streams + j] * k[i];
    }
}
