/* The registry: every kind the apps run, one line each, the default (the
 * kind of a command line that names none: upstream's separation command
 * line has no subcommand) first. Adding a kind adds its line here and its
 * own files; the driver and the runtime find it through this table. */
#include "kind.h"

#define ORR_KINDS(X)                                                                              \
    X(sep_descriptor)             /* separation/kind.c: the default */                            \
    X(spec_descriptor)            /* spectral/kind.c */                                           \
    X(spec_selftest_descriptor)   /* spectral/kind.c */                                           \
    X(dif_descriptor)             /* diffraction/kind.c */                                        \
    X(fdtd_descriptor)            /* fdtd/kind.c */                                               \
    X(mom_descriptor)             /* mom/kind.c */

#define ORR_KIND_DECLARE(descriptor) extern const orr_kind descriptor;
ORR_KINDS(ORR_KIND_DECLARE)

#define ORR_KIND_ENTRY(descriptor) &descriptor,
const orr_kind *const orr_kinds[] = {ORR_KINDS(ORR_KIND_ENTRY)};
const size_t orr_n_kinds = ORR_ARRAY_LEN(orr_kinds);
