/* Fuzz target: a diffraction checkpoint as the app resumes from it
 * (common/runtime/run.c). The input is the file: orr_checkpoint_read
 * (common/checkpoint.c) with the kind "diffraction" and the work-unit
 * identity the file itself names (so that a mutated identity does not
 * stop every input there). Its payload, or, when the CRC fails, the bytes
 * between the header and the CRC (as if it had been recomputed: anyone
 * can), goes to the kind's restore (dif_job_restore,
 * common/diffraction/job.c) of a job freshly planned through the
 * descriptor (dif_descriptor) on the reference backend, for a tiny work
 * unit: 4 points in batches of 2, 3 orders, 4 slices in 2 layers; once
 * with BiCGStab and, where the solver has it, once with GMRES(4).
 *
 * Restore validates every field, so: a refused payload leaves the job as
 * planned (the run starts from zero with it); an accepted one is the
 * job's payload after it, byte for byte, and the job then runs to the end
 * (the steps, bounded by max_iterations, and the report) without a crash.
 *
 * The seeds (seeds/diffraction_checkpoint/) are checkpoints of these work
 * units taken as kind.c takes them (dif_job_payload, orr_checkpoint_write):
 * after planning, inside the first batch (both points running; one done),
 * between the batches, and after the report. */
#include "fuzz_util.h"

#include "backend.h"
#include "checkpoint.h"
#include "diffraction/job.h"
#include "kind.h"

#define HEADER_LEN 60   /* checkpoint.c: magic, format, version, kind, identity, size */
#define CRC_LEN 4       /* and after the payload its CRC */
#define CHECKPOINT_KIND DIF_KIND_NAME
#define MAX_STEPS 10000 /* far more than 4 points of at most 40 iterations take */

extern const orr_kind dif_descriptor;

#define WU_HEAD                                                                                    \
    "orrery-diffraction 1\n"                                                                       \
    "period 400\n"                                                                                 \
    "orders 1\n"                                                                                   \
    "superstrate air\n"                                                                            \
    "substrate si\n"                                                                               \
    "material air eps 1 0\n"                                                                       \
    "material resist eps 2.25 0.01\n"                                                              \
    "material si nk 400 5.57 0.387\n"                                                              \
    "material si nk 700 3.78 0.008\n"                                                              \
    "layer thickness=60 background=air slices=3\n"                                                 \
    "shape rect material=resist x=0 width=150\n"                                                   \
    "layer thickness=20 background=resist slices=1\n"                                              \
    "wavelengths 450 633\n"                                                                        \
    "theta 0 20\n"

static const char *const wu_text[] = {
    WU_HEAD "solver tolerance=1e-12 max_iterations=40\n",
    WU_HEAD "solver method=gmres restart=4 tolerance=1e-12 max_iterations=40\n",
};
#define N_WU (int)(sizeof wu_text / sizeof wu_text[0])

static orr_backend backend;
static dif_cli cli[N_WU];
static char wu_path[N_WU][PATH_MAX + 16], out_path[PATH_MAX + 16];
static int usable[N_WU];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    orr_error err;
    orr_error_clear(&err);
    const orr_backend_request req = {.device = -1, .platform = -1};
    if (orr_open_reference_backend(&req, &backend, &err) != ORR_OK) {
        fprintf(stderr, "fuzz_diffraction_checkpoint: the reference backend: %s\n", err.message);
        abort();
    }
    fuzz_path("out", out_path, sizeof out_path);
    for (int w = 0; w < N_WU; w++) {
        char name[8];
        snprintf(name, sizeof name, "in%d", w);
        fuzz_file(name, wu_text[w], strlen(wu_text[w]), wu_path[w], sizeof wu_path[w]);
        cli[w] = (dif_cli){.job = {.wu_file = wu_path[w], .output = out_path}, .batch = 2};
        void *job;
        usable[w] = dif_descriptor.plan(&cli[w], &backend, &job, &err) == ORR_OK;
        if (usable[w])
            dif_descriptor.free(job);
        else if (w == 0) {
            fprintf(stderr, "fuzz_diffraction_checkpoint: the sample work unit: %s\n", err.message);
            abort();
        } else {
            fprintf(stderr, "fuzz_diffraction_checkpoint: work unit %d left out: %s\n", w,
                    err.message);
        }
    }
    return 0;
}

static void broken(int w, const char *what)
{
    fprintf(stderr, "fuzz_diffraction_checkpoint (work unit %d): %s\n", w, what);
    abort();
}

/* What the runtime does with a checkpoint's payload for work unit w. */
static void resume(int w, const void *payload, size_t size)
{
    orr_error err;
    orr_error_clear(&err);
    void *p;
    if (dif_descriptor.plan(&cli[w], &backend, &p, &err) != ORR_OK)
        broken(w, "planning failed");
    dif_job *job = p;
    size_t planned_size;
    const void *planned = dif_descriptor.payload(job, &planned_size);
    void *before = malloc(planned_size);
    if (!before)
        abort();
    memcpy(before, planned, planned_size);

    int reported = -1;
    if (dif_descriptor.restore(job, payload, size, "ck", &reported, &err) != ORR_OK) {
        /* refused: the run goes on from zero with this job */
        size_t n;
        const void *now = dif_descriptor.payload(job, &n);
        if (n != planned_size || memcmp(now, before, n) != 0 || job->in_batch)
            broken(w, "a refused checkpoint changed the job");
    } else {
        size_t n;
        const void *now = dif_descriptor.payload(job, &n);
        if (n != size || memcmp(now, payload, n) != 0)
            broken(w, "an accepted checkpoint is not the job's payload after it");
        if (reported != 0 && reported != 1)
            broken(w, "reported is neither 0 nor 1");
        if (!reported) {
            int steps = 0;
            orr_status s = ORR_OK;
            for (;;) {
                orr_step st = {0, 0, 0};
                if ((s = dif_descriptor.step(job, &st, &err)) != ORR_OK || st.finished)
                    break;
                if (st.saveable)
                    (void)dif_descriptor.payload(job, &n);
                if (!(st.done >= 0 && st.done <= 1))
                    broken(w, "progress outside 0..1");
                if (++steps == MAX_STEPS)
                    broken(w, "the resumed run does not finish");
            }
            if (s == ORR_OK)
                (void)dif_descriptor.report(job, &err);
        }
    }
    free(before);
    dif_descriptor.free(job);
}

static uint64_t get_u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
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
    const void *bytes = NULL;
    if (orr_checkpoint_read(path, CHECKPOINT_KIND, identity, &payload, &n, &err) == ORR_OK)
        bytes = payload;
    else if (size > HEADER_LEN + CRC_LEN) {
        /* in a buffer of its own, aligned as orr_checkpoint_read's (the
         * payload holds doubles) and ending where it does */
        n = size - HEADER_LEN - CRC_LEN;
        bytes = payload = malloc(n);
        if (!payload)
            abort();
        memcpy(payload, data + HEADER_LEN, n);
    }
    if (bytes)
        for (int w = 0; w < N_WU; w++)
            if (usable[w])
                resume(w, bytes, n);
    free(payload);
    return 0;
}
