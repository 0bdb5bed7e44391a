/* The registry: every kind orrery-validate judges, one line each, in the
 * order its messages name them ("a separation and a diffraction result").
 * A file is the first kind's whose header its first line is; separation
 * (header NULL: upstream's tags have none) takes every other file. Adding
 * a kind adds its line here and its workunits/K/validate.c; the driver
 * (dispatch, options, configuration keys, usage) finds it through this. */
#include "validate.h"

#define VD_KINDS(X)                                                                               \
    X(vd_separation)              /* separation/validate.c: the fallback */                       \
    X(vd_diffraction)             /* diffraction/validate.c */                                    \
    X(vd_fdtd)                    /* fdtd/validate.c */                                           \
    X(vd_mom)                     /* mom/validate.c */

#define VD_KIND_DECLARE(kind) extern const vd_kind kind;
VD_KINDS(VD_KIND_DECLARE)

#define VD_KIND_ENTRY(kind) &kind,
const vd_kind *const vd_kinds[] = {VD_KINDS(VD_KIND_ENTRY)};
const size_t vd_n_kinds = sizeof vd_kinds / sizeof vd_kinds[0];
