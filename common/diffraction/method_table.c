/* The method table (method.h): the solver's methods by the work unit's
 * `solver method=`. Adding a method adds its file and its line here. */
#include "method.h"

static const dif_solve_method *const methods[] = {
    [DIF_BICGSTAB] = &dif_bicgstab,
    [DIF_GMRES] = &dif_gmres,
};

const dif_solve_method *dif_solve_method_of(const dif_solver_options *opt)
{
    return methods[opt->method];
}
