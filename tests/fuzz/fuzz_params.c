/* Fuzz target: the astronomy parameter file (common/separation/params.c),
 * as the app reads it: sep_params_load (plain, gzip or zlib; io.c), the
 * model checks under every model, the search-value layout, and then the
 * whole work-unit check the app and orrery-wugen run on it
 * (sep_check_work_unit: limits, every bundle member's model constants,
 * the grid tables) with a fixed three-star catalogue. */
#include "fuzz_util.h"

#include "io/io.h"
#include "separation/separation.h"

/* The grid tables are built only for work units whose tables the app
 * would hold in at most this much (the app's own limit is 1 GiB): larger
 * ones are checked up to the limits, not built, to keep runs fast. */
#define FUZZ_MAX_TABLE_BYTES (64.0 * 1024 * 1024)

static const char stars_text[] = "3\n"
                                 "190.0 45.0 20.0\n"
                                 "200.5 -12.25 3.5\n"
                                 "150 0 1e-3\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char params_path[PATH_MAX + 16], stars_path[PATH_MAX + 16];
    fuzz_file("in0", data, size, params_path, sizeof params_path);
    fuzz_file("in1", stars_text, sizeof stars_text - 1, stars_path, sizeof stars_path);

    orr_error err;
    orr_error_clear(&err);
    sep_params p;
    if (sep_params_load(params_path, &p, &err) != ORR_OK)
        return 0;
    const sep_model models[] = {p.file_model, SEP_MODEL_CLASSIC, SEP_MODEL_V146};
    int usable = 0;
    for (size_t m = 0; m < sizeof models / sizeof models[0]; m++) {
        if (sep_params_validate(&p, models[m], &err) != ORR_OK)
            continue;
        usable = 1;
        const int per_wu = sep_search_params_per_wu(&p, models[m]);
        int members = 0;
        if (per_wu > 0 && per_wu <= SEP_MAX_SEARCH_PARAMS &&
            sep_search_bundle_size(&p, models[m], per_wu, &members, &err) == ORR_OK) {
            static double values[SEP_MAX_SEARCH_PARAMS];
            for (int i = 0; i < per_wu; i++)
                values[i] = 0.5 + i;
            sep_params member;
            (void)sep_params_apply_search(&p, models[m], values, per_wu, members - 1, &member,
                                          &err);
        }
    }
    if (!usable)
        return 0;

    sep_work_size z;
    if (sep_work_unit_size(&p, 3, 1, &z, &err) != ORR_OK ||
        sep_work_unit_limits(&z, &p, params_path, &err) != ORR_OK ||
        !(z.table_bytes <= FUZZ_MAX_TABLE_BYTES))
        return 0;
    for (int variant = 0; variant < 2; variant++) {
        sep_run_options opt;
        memset(&opt, 0, sizeof opt);
        opt.params_file = params_path;
        opt.stars_file = stars_path;
        opt.np = -1;
        opt.model.model = SEP_MODEL_AUTO;
        /* the v146 options, which classic files refuse */
        opt.model.modfit = opt.model.newbg = variant;
        sep_work_unit_info info;
        (void)sep_check_work_unit(&opt, &info, &err);
    }
    return 0;
}
