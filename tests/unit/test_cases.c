/* End-to-end reference cases: every case of MilkyWay@Home's expected.json
 * (tests/data/milkyway/cases.txt) run through the real CPU binary, each in
 * a fresh directory, and compared tag by tag with the published values.
 * Error cases must fail with a message and a non-zero exit and leave no
 * result file behind. The runs go two at a time (ORR_TEST_JOBS) since the
 * suite runs on small machines. With ORR_CPU_PATHS ("scalar avx2 ...") the
 * whole suite runs once per CPU kernel path (--cpu-path), one CUnit suite
 * each; a path this CPU cannot run is reported and skipped. The GPU apps
 * run it too: ORR_APP names the app, ORR_APP_ARGS adds arguments
 * ("--platform 0 --device 0") and ORR_TOLERANCE=gpu applies the
 * GPU tolerance (their sums run in another order). Each case's folder is
 * removed once its suite is checked (ORR_TEST_KEEP set: kept). */
#include <CUnit/Basic.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_CASES 64
#define MAX_ARGS 128
#define MAX_EXPECT 16

/* Likelihoods agree to 1e-12 absolute (the CPU tolerance of docs/separation.md). Integrals
 * are printed with 15 decimals on values up to ~1e3, where 1e-12 is a few
 * ulps; they are held to 1e-12 or 2e-15 relative, whichever is larger
 * (see README: small86_fileparams differs by 1.6e-12 = 1.5e-15 relative). */
#define LIKELIHOOD_TOL 1e-12
#define INTEGRAL_REL_TOL 2e-15
/* GPU apps: 1e-11 (spec), and 2e-14 relative for integrals up to ~1e3. */
#define GPU_LIKELIHOOD_TOL 1e-11
#define GPU_INTEGRAL_REL_TOL 2e-14
static double likelihood_tol = LIKELIHOOD_TOL, integral_rel_tol = INTEGRAL_REL_TOL;
static char *extra_args[16];
static int n_extra_args;

typedef struct {
    int member;
    char tag[64];
    int n;
    double v[8];
} expectation;

typedef struct {
    char id[64];
    char *argv[MAX_ARGS];
    int argc;
    int n_expect;
    expectation expect[MAX_EXPECT];
    int expect_error;
    /* results */
    char dir[256];
    int exit_code;
    char *output;
} test_case;

static test_case cases[MAX_CASES];
static int n_cases;
static const char *app;
static const char *datadir;
static const char *cpu_path;   /* --cpu-path of the suite running, or NULL */

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s)
        s[n] = '\0';
    fclose(f);
    return s;
}

static char *data_path(const char *rel)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", datadir, rel);
    if (access(buf, R_OK) != 0)
        snprintf(buf, sizeof buf, "%s/%s.gz", datadir, rel);
    return strdup(buf);
}

static int load_cases(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/cases.txt", datadir);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[8192];
    test_case *c = NULL;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        char *rest = strchr(line, ' ');
        if (rest)
            *rest++ = '\0';
        if (strcmp(line, "case") == 0 && n_cases < MAX_CASES) {
            c = &cases[n_cases++];
            memset(c, 0, sizeof *c);
            sscanf(rest, "%63s", c->id);
            c->argv[c->argc++] = (char *)app;
        } else if (c && strcmp(line, "command") == 0) {
            for (char *tok = strtok(rest, " "); tok && c->argc < MAX_ARGS - 1; tok = strtok(NULL, " ")) {
                int is_file = c->argc > 0 && (strcmp(c->argv[c->argc - 1], "-a") == 0 ||
                                              strcmp(c->argv[c->argc - 1], "-s") == 0);
                c->argv[c->argc++] = is_file ? data_path(tok) : strdup(tok);
            }
        } else if (c && strncmp(line, "expect", 6) == 0 && c->n_expect < MAX_EXPECT) {
            expectation *e = &c->expect[c->n_expect++];
            e->member = line[6] ? atoi(line + 6) : 0;
            char *tok = strtok(rest, " ");
            snprintf(e->tag, sizeof e->tag, "%s", tok);
            while ((tok = strtok(NULL, " ")) && e->n < 8)
                e->v[e->n++] = strtod(tok, NULL);
        } else if (c && strcmp(line, "error") == 0) {
            c->expect_error = 1;
        }
    }
    fclose(f);
    return 0;
}

static pid_t start_case(test_case *c)
{
    snprintf(c->dir, sizeof c->dir, "%s/orrery-case-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(c->dir))
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        char out[300];
        snprintf(out, sizeof out, "%s/stderr.out", c->dir);
        if (chdir(c->dir) != 0 || !freopen(out, "w", stderr) || !freopen("/dev/null", "w", stdout))
            _exit(127);
        /* -t too: an error case must leave no results.txt behind. */
        char *argv[MAX_ARGS + 20];
        int n = 0;
        char path_arg[64];
        for (int i = 0; i < c->argc; i++)
            argv[n++] = c->argv[i];
        argv[n++] = "-t";
        for (int i = 0; i < n_extra_args; i++)
            argv[n++] = extra_args[i];
        if (cpu_path) {
            snprintf(path_arg, sizeof path_arg, "--cpu-path=%s", cpu_path);
            argv[n++] = path_arg;
        }
        argv[n] = NULL;
        execv(app, argv);
        _exit(127);
    }
    return pid;
}

static void finish_case(test_case *c, int status)
{
    char out[300];
    c->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    snprintf(out, sizeof out, "%s/stderr.out", c->dir);
    c->output = read_all(out);
}

static int run_all(void)
{
    int jobs = getenv("ORR_TEST_JOBS") ? atoi(getenv("ORR_TEST_JOBS")) : 2;
    pid_t pids[MAX_CASES] = {0};
    int next = 0, running = 0, done = 0;
    if (jobs < 1)
        jobs = 1;
    while (done < n_cases) {
        while (running < jobs && next < n_cases) {
            pids[next] = start_case(&cases[next]);
            if (pids[next] < 0)
                return -1;
            next++;
            running++;
        }
        int status;
        pid_t pid = wait(&status);
        if (pid < 0)
            return -1;
        for (int i = 0; i < next; i++)
            if (pids[i] == pid) {
                finish_case(&cases[i], status);
                pids[i] = 0;
                running--;
                done++;
            }
    }
    return 0;
}

#define MAX_PATHS 8
static char *paths[MAX_PATHS];
static int n_paths;
static int path_skipped;

/* The previous run's case folders (the app writes only plain files
 * there), unless ORR_TEST_KEEP is set; and their outputs. */
static void clean_cases(void)
{
    const int keep = getenv("ORR_TEST_KEEP") != NULL;
    for (int i = 0; i < n_cases; i++) {
        test_case *c = &cases[i];
        free(c->output);
        c->output = NULL;
        if (!c->dir[0] || keep)
            continue;
        DIR *d = opendir(c->dir);
        for (struct dirent *e; d && (e = readdir(d));) {
            char path[sizeof c->dir + 258];
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
                snprintf(path, sizeof path, "%s/%s", c->dir, e->d_name) < (int)sizeof path)
                unlink(path);
        }
        if (d)
            closedir(d);
        rmdir(c->dir);
        c->dir[0] = '\0';
    }
}

static int run_suite(int path)
{
    cpu_path = paths[path];
    path_skipped = 0;
    clean_cases();
    return run_all();
}

#define SUITE_INIT_FN(i) static int suite_init_##i(void) { return run_suite(i); }
SUITE_INIT_FN(0) SUITE_INIT_FN(1) SUITE_INIT_FN(2) SUITE_INIT_FN(3)
SUITE_INIT_FN(4) SUITE_INIT_FN(5) SUITE_INIT_FN(6) SUITE_INIT_FN(7)
static int (*const suite_inits[MAX_PATHS])(void) = {
    suite_init_0, suite_init_1, suite_init_2, suite_init_3,
    suite_init_4, suite_init_5, suite_init_6, suite_init_7,
};

/* Values between <TAGk> and </TAGk>. */
static int find_tag(const char *out, const char *tag, int member, double *v, int max)
{
    char open[96], close[96];
    if (member > 0) {
        snprintf(open, sizeof open, "<%s%d>", tag, member);
        snprintf(close, sizeof close, "</%s%d>", tag, member);
    } else {
        snprintf(open, sizeof open, "<%s>", tag);
        snprintf(close, sizeof close, "</%s>", tag);
    }
    const char *p = strstr(out, open);
    if (!p)
        return -1;
    p += strlen(open);
    const char *end = strstr(p, close);
    if (!end)
        return -1;
    int n = 0;
    while (p < end && n < max) {
        char *q;
        double x = strtod(p, &q);
        if (q == p || q > end)
            break;
        v[n++] = x;
        p = q;
    }
    return n;
}

static const test_case *current;

static void check_case(void)
{
    const test_case *c = current;
    CU_ASSERT_PTR_NOT_NULL_FATAL(c->output);
    if (cpu_path && c->exit_code == 69 && strstr(c->output, "this CPU cannot run it")) {
        if (!path_skipped++)
            printf("\n  skipped: this CPU cannot run the %s path", cpu_path);
        return;
    }
    if (c->expect_error) {
        char results[300];
        snprintf(results, sizeof results, "%s/results.txt", c->dir);
        CU_ASSERT_NOT_EQUAL(c->exit_code, 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(c->output, "error: "));
        CU_ASSERT_PTR_NOT_NULL(strstr(c->output, "number of parameters doesn't match"));
        CU_ASSERT_PTR_NULL(strstr(c->output, "<search_likelihood>"));
        CU_ASSERT_NOT_EQUAL(access(results, F_OK), 0);
        return;
    }
    CU_ASSERT_EQUAL(c->exit_code, 0);
    for (int i = 0; i < c->n_expect; i++) {
        const expectation *e = &c->expect[i];
        double got[8];
        int n = find_tag(c->output, e->tag, e->member, got, 8);
        CU_ASSERT_EQUAL(n, e->n);
        if (n != e->n) {
            printf("\n  %s: tag %s (member %d): %d values, expected %d", c->id, e->tag, e->member, n, e->n);
            continue;
        }
        int integral = strstr(e->tag, "integral") != NULL;
        for (int k = 0; k < n; k++) {
            double d = fabs(got[k] - e->v[k]);
            double tol = likelihood_tol;
            if (integral && integral_rel_tol * fabs(e->v[k]) > tol)
                tol = integral_rel_tol * fabs(e->v[k]);
            CU_ASSERT(d <= tol);
            if (d > tol)
                printf("\n  %s: %s[%d] = %.17g, expected %.17g (diff %.2e > %.1e)", c->id, e->tag, k,
                       got[k], e->v[k], d, tol);
        }
    }
}

/* CUnit tests take no argument: one trampoline per case index. */
#define CASE_FN(i) static void case_##i(void) { current = &cases[i]; if (i < n_cases) check_case(); }
CASE_FN(0) CASE_FN(1) CASE_FN(2) CASE_FN(3) CASE_FN(4) CASE_FN(5) CASE_FN(6) CASE_FN(7)
CASE_FN(8) CASE_FN(9) CASE_FN(10) CASE_FN(11) CASE_FN(12) CASE_FN(13) CASE_FN(14) CASE_FN(15)
CASE_FN(16) CASE_FN(17) CASE_FN(18) CASE_FN(19) CASE_FN(20) CASE_FN(21) CASE_FN(22) CASE_FN(23)
CASE_FN(24) CASE_FN(25) CASE_FN(26) CASE_FN(27) CASE_FN(28) CASE_FN(29) CASE_FN(30) CASE_FN(31)
CASE_FN(32) CASE_FN(33) CASE_FN(34) CASE_FN(35) CASE_FN(36) CASE_FN(37) CASE_FN(38) CASE_FN(39)
static void (*const case_fns[])(void) = {
    case_0, case_1, case_2, case_3, case_4, case_5, case_6, case_7, case_8, case_9,
    case_10, case_11, case_12, case_13, case_14, case_15, case_16, case_17, case_18, case_19,
    case_20, case_21, case_22, case_23, case_24, case_25, case_26, case_27, case_28, case_29,
    case_30, case_31, case_32, case_33, case_34, case_35, case_36, case_37, case_38, case_39,
};

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    /* Cases are known only after reading the file; load them first so each
     * gets a test named after it. */
    app = getenv("ORR_APP");
    datadir = getenv("ORR_DATA");
    if (!app || !datadir || load_cases() != 0) {
        fprintf(stderr, "cannot load the cases (ORR_APP, ORR_DATA)\n");
        return 1;
    }
    if (getenv("ORR_TOLERANCE") && strcmp(getenv("ORR_TOLERANCE"), "gpu") == 0) {
        likelihood_tol = GPU_LIKELIHOOD_TOL;
        integral_rel_tol = GPU_INTEGRAL_REL_TOL;
    }
    char *args = strdup(getenv("ORR_APP_ARGS") ? getenv("ORR_APP_ARGS") : "");
    for (char *tok = strtok(args, " "); tok && n_extra_args < 16; tok = strtok(NULL, " "))
        extra_args[n_extra_args++] = tok;
    const char *list = getenv("ORR_CPU_PATHS");
    char *copy = strdup(list ? list : "");
    for (char *tok = strtok(copy, " "); tok && n_paths < MAX_PATHS; tok = strtok(NULL, " "))
        paths[n_paths++] = tok;
    if (n_paths == 0)
        paths[n_paths++] = NULL;   /* the app's default path */
    for (int p = 0; p < n_paths; p++) {
        char suite_name[128];
        const char *app_name = strrchr(app, '/') ? strrchr(app, '/') + 1 : app;
        snprintf(suite_name, sizeof suite_name, "separation reference cases (expected.json), %s%s%s",
                 app_name, paths[p] ? " --cpu-path=" : "", paths[p] ? paths[p] : "");
        /* CUnit keeps its own copies of the names */
        CU_pSuite suite = CU_add_suite(suite_name, suite_inits[p], NULL);
        for (int i = 0; i < n_cases && i < (int)(sizeof case_fns / sizeof case_fns[0]); i++)
            CU_add_test(suite, cases[i].id, case_fns[i]);
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
    CU_cleanup_registry();
    /* everything allocated above, so LeakSanitizer (the sanitizer job in
     * .ci/run) finds the suite clean */
    clean_cases();
    for (int i = 0; i < n_cases; i++)
        for (int a = 1; a < cases[i].argc; a++)   /* argv[0] is app */
            free(cases[i].argv[a]);
    free(args);
    free(copy);
    return failed ? 1 : 0;
}
