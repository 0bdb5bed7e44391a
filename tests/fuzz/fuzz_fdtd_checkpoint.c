/* Fuzz target: an FDTD checkpoint payload as the app resumes from it
 * (common/runtime/run.c). The input is the payload itself, the bytes that
 * orr_checkpoint_read hands to the kind (the file around it, its header
 * and CRC, is the `checkpoint` target's): fdtd_ckpt_head, the probe series
 * and energies so far, then each state array zlib-compressed
 * (common/fdtd/job.c). It goes to the kind's restore (fdtd_job_restore,
 * through fdtd_descriptor) of a job freshly planned on the reference
 * backend for each of three tiny work units: faithful double precision in
 * a PEC box with a lossy box; fast single precision, thesis boundary, a
 * table source and no energy series; and a CPML (its psi arrays are
 * checkpointed too) with a sphere and a snapshot.
 *
 * Restore validates the head against the work unit and the sizes against
 * the bytes, so: a refused payload leaves the job as planned (the run
 * starts from zero with it: no step done, every state array still zero);
 * an accepted one sets the steps and the series, packs again
 * (fdtd_job_pack) into a payload that a second fresh job accepts with the
 * same state, and the job then steps to the end and reports (to a file in
 * the target's folder, removed after) without a crash. A payload marked
 * reported must be the head alone.
 *
 * The seeds (seeds/fdtd_checkpoint/) are payloads of these work units made
 * by fdtd_job_pack and fdtd_job_pack_reported, as kind.c and report.c make
 * them: after planning, part way, at the last step before the report, and
 * after the report. This target writes them:
 *     FUZZ_FDTD_SEEDS=tests/fuzz/seeds/fdtd_checkpoint fuzz-build/fuzz_fdtd_checkpoint
 * (it writes them and exits). */
#include "fuzz_util.h"

#include "backend.h"
#include "fdtd/job.h"
#include "kind.h"

#define MAX_CALLS 10000   /* step calls: far more than 12 steps take */

extern const orr_kind fdtd_descriptor;

static const char *const wu_name[] = {"double", "single", "cpml"};
static const char *const wu_text[] = {
    /* faithful double, PEC walls, a lossy box over half the grid */
    "orrery-fdtd 1\n"
    "grid 4 3 3\n"
    "cell 1e-3 1e-3 1e-3\n"
    "steps 12\n"
    "boundary pec\n"
    "source waveform=gauss component=ez at=2,2,2 width=2 release_after=6\n"
    "material glass eps_r=2.25 sigma=0.01\n"
    "box material=glass from=0.002,0,0 to=0.004,0.003,0.003\n"
    "probe ez 3 2 2\n"
    "probe hy 2 2 2\n"
    "energy every=3\n",
    /* fast single, thesis, a table source, no energy series, the default probe */
    "orrery-fdtd 1\n"
    "grid 12 3 4\n"
    "cell 1e-3 2e-3 1e-3\n"
    "courant 0.9\n"
    "steps 10\n"
    "source waveform=table component=ey at=1,2,2\n"
    "table 0.5 1 0.5 -0.25\n"
    "arithmetic fast\n"
    "precision single\n",
    /* a CPML of one cell (its twelve psi arrays), a sphere, a snapshot */
    "orrery-fdtd 1\n"
    "grid 3 3 4\n"
    "cell 1e-3 1e-3 1e-3\n"
    "steps 9\n"
    "boundary cpml thickness=1 alpha=0.1\n"
    "source waveform=dgauss component=ex at=2,2,2 width=2\n"
    "material lossy eps_r=3 sigma=0.05\n"
    "sphere material=lossy centre=0.002,0.002,0.002 radius=1e-3\n"
    "probe ex 2 2 3\n"
    "probe hz 1 1 1\n"
    "energy every=2\n"
    "snapshot field=hz every=2\n",
};
#define N_WU (int)(sizeof wu_text / sizeof wu_text[0])

static orr_backend backend;
static fdtd_cli cli[N_WU];
static char wu_path[N_WU][PATH_MAX + 16], out_path[PATH_MAX + 16], out_partial[PATH_MAX + 16],
    npy_prefix[PATH_MAX + 16], npy_path[N_WU][PATH_MAX + 32], npy_partial[N_WU][PATH_MAX + 48];

static void broken(int w, const char *what)
{
    fprintf(stderr, "fuzz_fdtd_checkpoint (work unit %s): %s\n", wu_name[w], what);
    abort();
}

static void remove_outputs(void)
{
    unlink(out_path);
    unlink(out_partial);
    for (int w = 0; w < N_WU; w++) {
        unlink(npy_path[w]);
        unlink(npy_partial[w]);
    }
}

static fdtd_job *plan(int w)
{
    orr_error err;
    orr_error_clear(&err);
    void *p;
    if (fdtd_descriptor.plan(&cli[w], &backend, &p, &err) != ORR_OK) {
        fprintf(stderr, "fuzz_fdtd_checkpoint: %s\n", err.message);
        broken(w, "planning failed");
    }
    return p;
}

/* State array a of the job, in buf (array_len values). */
static void read_array(int w, fdtd_job *job, int a, void *buf)
{
    orr_error err;
    orr_error_clear(&err);
    if (job->ops.ops->read(job->ctx, a, buf, &err) != ORR_OK)
        broken(w, "reading a state array failed");
}

static size_t array_bytes(const fdtd_job *job, int a)
{
    return job->s.array_len[a] * (size_t)job->s.real_bytes;
}

/* Steps to the end as kind.c's step does (it packs at every step here: the
 * runtime, never started, says it is always time to checkpoint); 0 when a
 * step failed. */
static int run_to_end(int w, fdtd_job *job)
{
    orr_error err;
    orr_error_clear(&err);
    for (int calls = 0;; calls++) {
        orr_step st = {0, 0, 0};
        if (fdtd_descriptor.step(job, &st, &err) != ORR_OK)
            return 0;
        if (!(st.done >= 0 && st.done <= 1) || job->done > job->wu.steps)
            broken(w, "progress outside 0..1");
        if (st.finished)
            return 1;
        if (calls == MAX_CALLS)
            broken(w, "the resumed run does not finish");
    }
}

static void write_seed(const char *dir, int w, const char *point, fdtd_job *job)
{
    char path[PATH_MAX + 64];
    size_t n;
    const void *payload = fdtd_descriptor.payload(job, &n);
    snprintf(path, sizeof path, "%s/%s-%s", dir, wu_name[w], point);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(payload, 1, n, f) != n || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
    printf("%s: %zu bytes, %ld of %ld steps\n", path, n, job->done, job->wu.steps);
}

/* FUZZ_FDTD_SEEDS=DIR: the seeds, made as the app makes checkpoints. */
static void write_seeds(const char *dir)
{
    orr_error err;
    orr_error_clear(&err);
    for (int w = 0; w < N_WU; w++) {
        fdtd_job *job = plan(w);
        if (fdtd_job_pack(job, &err) != ORR_OK)
            broken(w, "packing failed");
        write_seed(dir, w, "planned", job);
        while (job->done < job->wu.steps / 2) {
            orr_step st = {0, 0, 0};
            if (fdtd_descriptor.step(job, &st, &err) != ORR_OK)
                broken(w, "a step failed");
        }
        if (fdtd_job_pack(job, &err) != ORR_OK)
            broken(w, "packing failed");
        write_seed(dir, w, "mid", job);
        if (!run_to_end(w, job) || fdtd_job_pack(job, &err) != ORR_OK)
            broken(w, "the run failed");
        write_seed(dir, w, "done", job);
        if (fdtd_descriptor.report(job, &err) != ORR_OK)
            broken(w, "the report failed");
        write_seed(dir, w, "reported", job);
        fdtd_descriptor.free(job);
        remove_outputs();
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    orr_error err;
    orr_error_clear(&err);
    const orr_backend_request req = {.device = -1, .platform = -1};
    if (orr_open_reference_backend(&req, &backend, &err) != ORR_OK) {
        fprintf(stderr, "fuzz_fdtd_checkpoint: the reference backend: %s\n", err.message);
        abort();
    }
    fuzz_path("out", out_path, sizeof out_path);
    fuzz_path("out.partial", out_partial, sizeof out_partial);
    fuzz_path("snap", npy_prefix, sizeof npy_prefix);
    atexit(remove_outputs);   /* before fuzz_cleanup removes the folder */
    for (int w = 0; w < N_WU; w++) {
        char name[8];
        snprintf(name, sizeof name, "in%d", w);
        fuzz_file(name, wu_text[w], strlen(wu_text[w]), wu_path[w], sizeof wu_path[w]);
        cli[w] = (fdtd_cli){.job = {.wu_file = wu_path[w], .output = out_path, .npy = npy_prefix}};
    }
    /* the snapshot's file: PREFIX_FIELD.npy (report.c) */
    static const char *const fields[] = {"ex", "ey", "ez", "hx", "hy", "hz"};
    for (int w = 0; w < N_WU; w++) {
        fdtd_job *job = plan(w);
        snprintf(npy_path[w], sizeof npy_path[w], "%s_%s.npy", npy_prefix,
                 fields[job->wu.snapshot_field]);
        snprintf(npy_partial[w], sizeof npy_partial[w], "%s.partial", npy_path[w]);
        fdtd_descriptor.free(job);
    }
    const char *seeds = getenv("FUZZ_FDTD_SEEDS");
    if (seeds && *seeds) {
        write_seeds(seeds);
        exit(0);
    }
    return 0;
}

/* Whether two jobs hold the same state arrays. */
static int same_state(int w, fdtd_job *a, fdtd_job *b)
{
    int same = 1;
    for (int q = 0; same && q < a->s.n_arrays; q++) {
        const size_t n = array_bytes(a, q);
        unsigned char *x = malloc(n), *y = malloc(n);
        if (!x || !y)
            abort();
        read_array(w, a, q, x);
        read_array(w, b, q, y);
        same = memcmp(x, y, n) == 0;
        free(x);
        free(y);
    }
    return same;
}

static void resume(int w, const uint8_t *payload, size_t size)
{
    orr_error err;
    orr_error_clear(&err);
    fdtd_job *job = plan(w);
    const fdtd_setup *s = &job->s;
    int reported = -1;
    if (fdtd_descriptor.restore(job, payload, size, "ck", &reported, &err) != ORR_OK) {
        /* refused: the run goes on from zero with this job */
        if (job->done != 0 || job->n_energy != 0 || job->reported || job->payload)
            broken(w, "a refused checkpoint changed the job");
        for (int a = 0; a < s->n_arrays; a++) {
            const size_t n = array_bytes(job, a);
            unsigned char *x = malloc(n);
            if (!x)
                abort();
            read_array(w, job, a, x);
            for (size_t i = 0; i < n; i++)
                if (x[i])
                    broken(w, "a refused checkpoint left state in the fields");
            free(x);
        }
        fdtd_descriptor.free(job);
        return;
    }
    fdtd_ckpt_head h;
    if (size < sizeof h)
        broken(w, "a payload shorter than its head was accepted");
    memcpy(&h, payload, sizeof h);
    if (reported != 0 && reported != 1)
        broken(w, "reported is neither 0 nor 1");
    if (reported) {
        /* the runtime stops here: the results went out before */
        if (size != sizeof h || h.done != job->wu.steps)
            broken(w, "a reported checkpoint that is more than its head, or not at the end");
        fdtd_descriptor.free(job);
        return;
    }
    if (job->done != h.done || job->done < 0 || job->done > job->wu.steps ||
        job->n_energy != fdtd_energy_count(&job->wu, job->done) || job->n_energy != h.n_energy)
        broken(w, "the steps or the energies are not the checkpoint's");
    const size_t series = (size_t)job->done * s->n_probes * sizeof(double),
                 energies = (size_t)job->n_energy * sizeof(double);
    if (memcmp(job->series, payload + sizeof h, series) != 0 ||
        memcmp(job->energy, payload + sizeof h + series, energies) != 0)
        broken(w, "the series or the energies are not the checkpoint's");

    /* packed again, it restores into a fresh job as the same state */
    if (fdtd_job_pack(job, &err) != ORR_OK)
        broken(w, "packing a restored job failed");
    size_t n;
    const uint8_t *again = fdtd_descriptor.payload(job, &n);
    fdtd_ckpt_head g;
    if (n < sizeof g)
        broken(w, "the payload packed after a restore is shorter than its head");
    memcpy(&g, again, sizeof g);
    if (g.version != h.version || g.real_bytes != h.real_bytes || g.n_probes != h.n_probes ||
        g.n_arrays != h.n_arrays || g.done != h.done || g.n_energy != h.n_energy || g.reported ||
        memcmp(again + sizeof h, payload + sizeof h, series + energies) != 0)
        broken(w, "the payload packed after a restore has another head or series");
    fdtd_job *twin = plan(w);
    int twin_reported = -1;
    if (fdtd_descriptor.restore(twin, again, n, "ck2", &twin_reported, &err) != ORR_OK) {
        fprintf(stderr, "fuzz_fdtd_checkpoint: %s\n", err.message);
        broken(w, "the payload packed after a restore is refused");
    }
    if (twin_reported != 0 || twin->done != job->done || !same_state(w, job, twin))
        broken(w, "the payload packed after a restore restores another state");
    fdtd_descriptor.free(twin);

    if (run_to_end(w, job))
        (void)fdtd_descriptor.report(job, &err);
    remove_outputs();
    fdtd_descriptor.free(job);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* a buffer of its own, aligned as orr_checkpoint_read's (the payload
     * holds doubles) and ending where the input does */
    uint8_t *payload = malloc(size ? size : 1);
    if (!payload)
        abort();
    memcpy(payload, data, size);
    for (int w = 0; w < N_WU; w++)
        resume(w, payload, size);
    free(payload);
    return 0;
}
