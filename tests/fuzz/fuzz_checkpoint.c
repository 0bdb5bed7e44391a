/* Fuzz target: a checkpoint file as the app resumes from it. The input
 * is the file: orr_checkpoint_read (common/checkpoint.c) checks header,
 * size and CRC, with the kind "separation" and the work-unit identity the
 * file itself names (so that a mutated identity does not stop every input
 * there). Then the separation payload goes through the resume validation
 * (sep_run_state_check, common/separation/likelihood.c) against the
 * sample work unit (tests/data/milkyway params_head 11-small, 3 streams,
 * one area), with as many bundle members as the payload claims (1 to
 * SEP_MAX_BUNDLE): the payload of a good file, else the bytes after the
 * header, as if their CRC had been recomputed (anyone can), so mutations
 * reach the validation without forging CRCs. A good file's payload is
 * also written back (orr_checkpoint_write) and must read back the same. */
#include "fuzz_util.h"

#include "checkpoint.h"
#include "io/io.h"
#include "separation/separation.h"

#define HEADER_LEN 60   /* checkpoint.c: magic, format, version, kind, identity, size */
#define CHECKPOINT_KIND "separation"

static const char params_text[] =
    "parameters_version: 0.04\n"
    "number_parameters: 4\n"
    "background_weight: 0.0\n"
    "background_parameters[4]: 1.0, 0.571713, 12.312119, 1.0\n"
    "background_step[4]: 0.02, 0.000004, 0.00008, 0.02\n"
    "background_min[4]: 0.0, 0.3, 1.0, 0.1\n"
    "background_max[4]: 3.0, 1.0, 30.0, 3.0\n"
    "optimize_parameter[4]: 0, 1, 1, 0\n"
    "number_streams: 3, 5\n"
    "stream_weight: -3.305187\n"
    "stream_weight_step: 0.000001\n"
    "stream_weight_min: -20.0\n"
    "stream_weight_max: 20.0\n"
    "optimize_weight: 1\n"
    "stream_parameters[5]: 148.010257, 22.453902, 0.42035, -0.468858, 0.760579\n"
    "stream_step[5]: 0.00003, 0.00004, 0.00006, 0.00004, 0.000004\n"
    "stream_min[5]: 150.0, 2.30, -6.283185307179586, -6.283185307179586, 0.10\n"
    "stream_max[5]: 229.0, 57.5, 6.283185307179586, 6.283185307179586, 20.0\n"
    "optimize_parameter[5]: 1, 1, 1, 1, 1\n"
    "stream_weight: -1.361644\n"
    "stream_weight_step: 0.000001\n"
    "stream_weight_min: -20.0\n"
    "stream_weight_max: 20.0\n"
    "optimize_weight: 1\n"
    "stream_parameters[5]: 177.884238, 23.882892, 1.210639, -1.611974, 8.534378\n"
    "stream_step[5]: 0.00003, 0.00004, 0.00006, 0.00004, 0.000004\n"
    "stream_min[5]: 150.0, 2.40, -6.283185307179586, -6.283185307179586, 0.10\n"
    "stream_max[5]: 229.0, 57.5, 6.283185307179586, 6.283185307179586, 20.0\n"
    "optimize_parameter[5]: 1, 1, 1, 1, 1\n"
    "stream_weight: -1.361644\n"
    "stream_weight_step: 0.000001\n"
    "stream_weight_min: -20.0\n"
    "stream_weight_max: 20.0\n"
    "optimize_weight: 1\n"
    "stream_parameters[5]: 177.884238, 10.882892, 1.210639, -1.611974, 8.534378\n"
    "stream_step[5]: 0.00003, 0.00004, 0.00006, 0.00004, 0.000004\n"
    "stream_min[5]: 150.0, 2.40, -6.283185307179586, -6.283185307179586, 0.10\n"
    "stream_max[5]: 229.0, 57.5, 6.283185307179586, 6.283185307179586, 20.0\n"
    "optimize_parameter[5]: 1, 1, 1, 1, 1\n"
    "convolve: 120 \n"
    "sgr_coordinates: 0\n"
    "aux_bg_profile: 0\n"
    "wedge: 11\n"
    "r[min,max,steps]: 16.0, 23.0, 140\n"
    "mu[min,max,steps]: 150, 229, 160\n"
    "nu[min,max,steps]: -1.25, 1.25, 64\n"
    "number_cuts: 0\n"
;

static sep_setup setup;
static int n_streams;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    orr_error err;
    orr_error_clear(&err);
    sep_params p, member;
    sep_model_consts mc;
    const sep_model_options opt = {SEP_MODEL_AUTO, 0, 0};
    if (sep_params_parse("params", params_text, sizeof params_text - 1, &p, &err) != ORR_OK ||
        sep_params_apply_search(&p, p.file_model, NULL, 0, 0, &member, &err) != ORR_OK ||
        sep_model_consts_init(&member, &opt, p.file_model, &mc, &err) != ORR_OK ||
        sep_setup_init(&member, &mc, &setup, &err) != ORR_OK) {
        fprintf(stderr, "fuzz_checkpoint: the sample work unit: %s\n", err.message);
        abort();
    }
    n_streams = p.n_streams;
    return 0;
}

static uint64_t get_u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static void check_state(const void *bytes, size_t size)
{
    static sep_run_state st;
    memset(&st, 0, sizeof st);
    memcpy(&st, bytes, size < sizeof st ? size : sizeof st);
    const int members = st.members >= 1 && st.members <= SEP_MAX_BUNDLE ? st.members : 1;
    orr_error err;
    orr_error_clear(&err);
    (void)sep_run_state_check(&st, &setup, members, n_streams, &err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[PATH_MAX + 16];
    fuzz_file("ck", data, size, path, sizeof path);
    const uint64_t identity = size >= HEADER_LEN ? get_u64(data + 44) : 0;
    orr_error err;
    orr_error_clear(&err);
    void *payload = NULL;
    size_t n = 0;
    if (orr_checkpoint_read(path, CHECKPOINT_KIND, identity, &payload, &n, &err) == ORR_OK) {
        check_state(payload, n);
        /* what was read writes back and reads back the same */
        void *again = NULL;
        size_t m = 0;
        if (orr_checkpoint_write(path, CHECKPOINT_KIND, identity, payload, n, &err) != ORR_OK ||
            orr_checkpoint_read(path, CHECKPOINT_KIND, identity, &again, &m, &err) != ORR_OK ||
            m != n || memcmp(again, payload, n) != 0) {
            fprintf(stderr, "fuzz_checkpoint: round trip failed: %s\n", err.message);
            abort();
        }
        free(again);
        free(payload);
    } else if (size > HEADER_LEN) {
        check_state(data + HEADER_LEN, size - HEADER_LEN);
    }
    return 0;
}
