/* The FDTD work-unit reader (common/fdtd/parse.c, docs/fdtd.md section 2):
 * good work units give the values written and the documented defaults;
 * the sample work units of tests/data/fdtd load; plain and gzip files give
 * the same work unit; the 64 MiB cap; and every kind of bad work unit is
 * refused with ORR_ERR_INPUT (exit 65) and "file:line: key: ..." naming
 * the right line and key. Run under ASan, it also checks that nothing
 * leaks on any path. The samples are read from $ORR_FDTD_DATA, else
 * $srcdir/tests/data/fdtd (make check exports srcdir). */
#include <CUnit/Basic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "fdtd/fdtd.h"
#include "io/io.h"

static char tmpdir[256];
static char datadir[1024];

static orr_status parse(const char *text, fdtd_workunit *wu, orr_error *err)
{
    memset(err, 0, sizeof *err);
    return fdtd_workunit_parse("wu.txt", text, strlen(text), wu, err);
}

/* ---- good work units ---- */

#define MINIMAL "orrery-fdtd 1\ngrid 16 12 9\ncell 1e-3 1e-3 1e-3\nsteps 400\n" \
                "source waveform=gauss width=10\n"

static void test_defaults(void)
{
    fdtd_workunit wu;
    orr_error err;
    CU_ASSERT_EQUAL_FATAL(parse(MINIMAL, &wu, &err), ORR_OK);
    CU_ASSERT_STRING_EQUAL(wu.path, "wu.txt");
    CU_ASSERT_EQUAL(wu.content_hash, orr_hash64(ORR_HASH64_INIT, MINIMAL, strlen(MINIMAL)));
    CU_ASSERT(wu.n[0] == 16 && wu.n[1] == 12 && wu.n[2] == 9);
    CU_ASSERT(wu.d[0] == 1e-3 && wu.d[1] == 1e-3 && wu.d[2] == 1e-3);
    CU_ASSERT_EQUAL(wu.courant, 0.99);
    CU_ASSERT_EQUAL(wu.steps, 400);
    CU_ASSERT_EQUAL(wu.boundary, FDTD_THESIS);
    CU_ASSERT(wu.cpml.thickness == 10 && wu.cpml.order == 3 && wu.cpml.reflection == 1e-6 &&
              wu.cpml.alpha == 0);
    const fdtd_source *s = &wu.source;
    CU_ASSERT(s->field == FDTD_EZ && s->waveform == FDTD_GAUSS && s->amplitude == 1);
    CU_ASSERT(s->at[0] == 8 && s->at[1] == 6 && s->at[2] == 4);   /* n / 2 */
    CU_ASSERT(s->width == 10 && s->delay == 40);                   /* 4 widths */
    CU_ASSERT_EQUAL(s->release_after, 400);                        /* every step */
    CU_ASSERT(s->n_table == 0 && s->table == NULL);
    CU_ASSERT(wu.n_probes == 0 && wu.probes == NULL);
    CU_ASSERT_EQUAL(wu.energy_every, 0);
    CU_ASSERT(wu.arithmetic == FDTD_FAITHFUL && wu.precision == FDTD_DOUBLE);
    CU_ASSERT(wu.n_materials == 0 && wu.n_regions == 0 && wu.n_params == 0);
    CU_ASSERT_EQUAL(wu.snapshot, 0);
    fdtd_workunit_free(&wu);
    CU_ASSERT(wu.probes == NULL && wu.n_probes == 0);   /* zeroed: a second free is harmless */
    fdtd_workunit_free(&wu);
}

/* Every statement and key, with CRLF ends, tabs, comments and blank lines;
 * statements in an order unlike the docs'. */
static const char full_text[] =
    "# everything given\r\n"
    "orrery-fdtd 1   # the format\r\n"
    "\r\n"
    "snapshot field=hy every=3\r\n"
    "param cd 1.50e-3\r\n"
    "param\tname_2   x=y,z\r\n"
    "material glass eps_r=2.25\r\n"
    "material metal eps_r=1 sigma=5.8e7\r\n"
    "box material=glass from=0,0,0 to=0.012,0.02,0.012\r\n"
    "sphere material=metal centre=0.006,0.01,0.006 radius=0.002\r\n"
    "box material=vacuum from=1e-3,1e-3,1e-3 to=1e-3,1e-3,1e-3\r\n"
    "source waveform=dgauss component=ey at=6,11,12 amplitude=-2.5 delay=30 width=7.5 "
    "release_after=0\r\n"
    "grid 12 10 24\r\n"
    "cell 1e-3 2e-3 0.5e-3\r\n"
    "courant 1\r\n"
    "steps 300\r\n"
    "boundary cpml thickness=4 order=2.5 reflection=1e-8 alpha=0.02\r\n"
    "probe hz 0 0 0\r\n"
    "probe ex 13 11 25\r\n"
    "energy every=300\r\n"
    "arithmetic fast\r\n"
    "precision single\r\n";

static void check_full_regions(const fdtd_workunit *wu)
{
    CU_ASSERT_EQUAL_FATAL(wu->n_materials, 2);
    CU_ASSERT(strcmp(wu->materials[0].name, "glass") == 0 && wu->materials[0].eps_r == 2.25 &&
              wu->materials[0].sigma == 0 && wu->materials[0].line == 7);
    CU_ASSERT(strcmp(wu->materials[1].name, "metal") == 0 && wu->materials[1].eps_r == 1 &&
              wu->materials[1].sigma == 5.8e7 && wu->materials[1].line == 8);
    CU_ASSERT_EQUAL_FATAL(wu->n_regions, 3);
    const fdtd_region *r = wu->regions;
    CU_ASSERT(r[0].kind == FDTD_BOX && r[0].material == 0 && r[0].line == 9);
    CU_ASSERT(r[0].lo[0] == 0 && r[0].lo[2] == 0 && r[0].hi[0] == 0.012 && r[0].hi[1] == 0.02 &&
              r[0].hi[2] == 0.012);
    CU_ASSERT(r[1].kind == FDTD_SPHERE && r[1].material == 1 && r[1].line == 10);
    CU_ASSERT(r[1].centre[0] == 0.006 && r[1].centre[1] == 0.01 && r[1].centre[2] == 0.006 &&
              r[1].radius == 0.002);
    CU_ASSERT(r[2].kind == FDTD_BOX && r[2].material == -1 && r[2].lo[1] == 1e-3 &&
              r[2].hi[1] == 1e-3);
}

static void test_every_value(void)
{
    fdtd_workunit wu;
    orr_error err;
    CU_ASSERT_EQUAL_FATAL(parse(full_text, &wu, &err), ORR_OK);
    CU_ASSERT_EQUAL_FATAL(wu.n_params, 2);
    CU_ASSERT(strcmp(wu.param_name[0], "cd") == 0 && strcmp(wu.param_text[0], "1.50e-3") == 0);
    CU_ASSERT(strcmp(wu.param_name[1], "name_2") == 0 && strcmp(wu.param_text[1], "x=y,z") == 0);
    CU_ASSERT(wu.n[0] == 12 && wu.n[1] == 10 && wu.n[2] == 24);
    CU_ASSERT(wu.d[0] == 1e-3 && wu.d[1] == 2e-3 && wu.d[2] == 0.5e-3);
    CU_ASSERT(wu.courant == 1 && wu.steps == 300 && wu.boundary == FDTD_CPML);
    CU_ASSERT(wu.cpml.thickness == 4 && wu.cpml.order == 2.5 && wu.cpml.reflection == 1e-8 &&
              wu.cpml.alpha == 0.02);
    const fdtd_source *s = &wu.source;
    CU_ASSERT(s->waveform == FDTD_DGAUSS && s->field == FDTD_EY && s->amplitude == -2.5);
    /* j = ny + 1: Ey is staggered along y, live there with cpml */
    CU_ASSERT(s->at[0] == 6 && s->at[1] == 11 && s->at[2] == 12);
    CU_ASSERT(s->delay == 30 && s->width == 7.5 && s->release_after == 0);
    CU_ASSERT_EQUAL_FATAL(wu.n_probes, 2);
    CU_ASSERT(wu.probes[0].field == FDTD_HZ && wu.probes[0].at[0] == 0 && wu.probes[0].at[2] == 0 &&
              wu.probes[0].line == 18);
    CU_ASSERT(wu.probes[1].field == FDTD_EX && wu.probes[1].at[0] == 13 &&
              wu.probes[1].at[1] == 11 && wu.probes[1].at[2] == 25 && wu.probes[1].line == 19);
    CU_ASSERT(wu.energy_every == 300 && wu.arithmetic == FDTD_FAST && wu.precision == FDTD_SINGLE);
    CU_ASSERT(wu.snapshot == 1 && wu.snapshot_field == FDTD_HY && wu.snapshot_every == 3);
    check_full_regions(&wu);
    fdtd_workunit_free(&wu);
}

/* A table over several lines (comments and blank lines between), and the
 * live cells of each boundary at its edges. */
static void test_table_and_edges(void)
{
    fdtd_workunit wu;
    orr_error err;
    const char *table = "orrery-fdtd 1\ntable 1 2.5\ngrid 4 4 4\ncell 1 1 1\nsteps 10\n"
                        "# more values\n\ntable\t-3e-1 4  # the rest\n"
                        "source waveform=table amplitude=2 release_after=10 at=1,1,1\n";
    CU_ASSERT_EQUAL_FATAL(parse(table, &wu, &err), ORR_OK);
    CU_ASSERT_EQUAL_FATAL(wu.source.n_table, 4);
    CU_ASSERT(wu.source.table[0] == 1 && wu.source.table[1] == 2.5 &&
              wu.source.table[2] == -0.3 && wu.source.table[3] == 4);
    CU_ASSERT(wu.source.waveform == FDTD_TABLE && wu.source.amplitude == 2 &&
              wu.source.delay == 0 && wu.source.width == 0);
    fdtd_workunit_free(&wu);
    static const char *const ok[] = {
        "boundary pec\nsource waveform=gauss width=1 component=ex at=5,4,4\n",
        "boundary pec\nsource waveform=gauss width=1 component=ey at=1,5,1\n",
        "boundary cpml thickness=1\nsource waveform=gauss width=1 at=4,4,5\n",
        "source waveform=gauss width=1 at=4,4,4\nprobe hz 5 5 5\nprobe ex 0 0 0\n",
    };
    for (size_t i = 0; i < ORR_ARRAY_LEN(ok); i++) {
        char text[512];
        snprintf(text, sizeof text, "orrery-fdtd 1\ngrid 4 4 4\ncell 1 1 1\nsteps 10\n%s", ok[i]);
        orr_status s = parse(text, &wu, &err);
        if (s != ORR_OK)
            printf("\n    edge %zu: %s", i, err.message);
        CU_ASSERT_EQUAL(s, ORR_OK);
        if (s == ORR_OK)
            fdtd_workunit_free(&wu);
    }
}

static void test_field_names(void)
{
    static const char *const names[] = {"ex", "ey", "ez", "hx", "hy", "hz"};
    for (int f = 0; f < FDTD_N_FIELDS; f++)
        CU_ASSERT_STRING_EQUAL(fdtd_field_name((fdtd_field)f), names[f]);
    CU_ASSERT_STRING_EQUAL(fdtd_field_name(FDTD_N_FIELDS), "?");
}

/* ---- files: the samples, gzip, the cap ---- */

static void sample_path(char *out, size_t size, const char *name)
{
    snprintf(out, size, "%s/%s", datadir, name);
}

static void test_samples(void)
{
    static const struct {
        const char *name;
        fdtd_boundary boundary;
        int n2, n_probes, n_materials, n_regions;
        long steps;
    } samples[] = {
        {"cavity_pec.txt", FDTD_PEC, 16, 2, 0, 0, 400},
        {"cavity_thesis.txt", FDTD_THESIS, 16, 2, 0, 0, 400},
        {"cpml_slab.txt", FDTD_CPML, 60, 2, 1, 1, 300},
        {"materials.txt", FDTD_THESIS, 20, 2, 2, 3, 300},
        {"table_source.txt", FDTD_PEC, 12, 1, 0, 0, 200},
    };
    for (size_t i = 0; i < ORR_ARRAY_LEN(samples); i++) {
        char path[1200];
        fdtd_workunit wu;
        orr_error err;
        sample_path(path, sizeof path, samples[i].name);
        orr_status s = fdtd_workunit_load(path, &wu, &err);
        if (s != ORR_OK)
            printf("\n    %s: %s", samples[i].name, err.message);
        CU_ASSERT_EQUAL_FATAL(s, ORR_OK);
        CU_ASSERT(wu.boundary == samples[i].boundary && wu.n[2] == samples[i].n2 &&
                  wu.n_probes == samples[i].n_probes && wu.n_materials == samples[i].n_materials &&
                  wu.n_regions == samples[i].n_regions && wu.steps == samples[i].steps);
        CU_ASSERT(wu.n[0] * (long)wu.n[1] * wu.n[2] <= 60L * 21 * 21 && wu.steps <= 500);
        CU_ASSERT(wu.n_params == 1 && strcmp(wu.param_name[0], "case") == 0);
        fdtd_workunit_free(&wu);
    }
}

static void test_sample_details(void)
{
    char path[1200];
    fdtd_workunit wu;
    orr_error err;
    sample_path(path, sizeof path, "cavity_pec.txt");
    CU_ASSERT_EQUAL_FATAL(fdtd_workunit_load(path, &wu, &err), ORR_OK);
    CU_ASSERT(wu.source.release_after == 60 && wu.source.delay == 32 && wu.energy_every == 10);
    fdtd_workunit_free(&wu);
    sample_path(path, sizeof path, "cpml_slab.txt");
    CU_ASSERT_EQUAL_FATAL(fdtd_workunit_load(path, &wu, &err), ORR_OK);
    CU_ASSERT(wu.cpml.thickness == 10 && wu.source.field == FDTD_EX &&
              wu.materials[0].eps_r == 4 && wu.regions[0].material == 0);
    fdtd_workunit_free(&wu);
    sample_path(path, sizeof path, "materials.txt");
    CU_ASSERT_EQUAL_FATAL(fdtd_workunit_load(path, &wu, &err), ORR_OK);
    CU_ASSERT(wu.arithmetic == FDTD_FAST && wu.precision == FDTD_SINGLE &&
              wu.materials[1].sigma > 0 && wu.regions[1].material == -1 &&
              wu.regions[2].kind == FDTD_SPHERE && wu.snapshot && wu.snapshot_every == 2);
    fdtd_workunit_free(&wu);
    sample_path(path, sizeof path, "table_source.txt");
    CU_ASSERT_EQUAL_FATAL(fdtd_workunit_load(path, &wu, &err), ORR_OK);
    CU_ASSERT(wu.source.waveform == FDTD_TABLE && wu.source.n_table == 20 &&
              wu.source.table[9] == 1.0 && wu.source.table[19] == 0.0);
    fdtd_workunit_free(&wu);
}

static void write_gz(const char *path, const char *text, size_t len, long repeat)
{
    gzFile g = gzopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    int ok = 1;
    for (long r = 0; r < repeat && ok; r++)
        ok = gzwrite(g, text, (unsigned)len) == (int)len;
    CU_ASSERT_FATAL(gzclose(g) == Z_OK && ok);
}

/* The same text plain and gzip-compressed: the same work unit and hash
 * (of the text, not of the file's bytes). */
static void test_gzip(void)
{
    char plain[300], gz[300];
    fdtd_workunit a, b;
    orr_error err;
    snprintf(plain, sizeof plain, "%s/wu.txt", tmpdir);
    snprintf(gz, sizeof gz, "%s/wu.txt.gz", tmpdir);
    FILE *f = fopen(plain, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(full_text, f);
    fclose(f);
    write_gz(gz, full_text, strlen(full_text), 1);
    CU_ASSERT_EQUAL_FATAL(fdtd_workunit_load(plain, &a, &err), ORR_OK);
    CU_ASSERT_EQUAL_FATAL(fdtd_workunit_load(gz, &b, &err), ORR_OK);
    CU_ASSERT_STRING_EQUAL(a.path, plain);
    CU_ASSERT_STRING_EQUAL(b.path, gz);
    CU_ASSERT_EQUAL(a.content_hash, orr_hash64(ORR_HASH64_INIT, full_text, strlen(full_text)));
    CU_ASSERT_EQUAL(a.content_hash, b.content_hash);
    CU_ASSERT(a.n_regions == b.n_regions && a.source.width == b.source.width);
    fdtd_workunit_free(&a);
    fdtd_workunit_free(&b);
    unlink(plain);
    unlink(gz);
    CU_ASSERT_EQUAL(fdtd_workunit_load(plain, &a, &err), ORR_ERR_OPEN);   /* gone */
}

/* 65 MiB of comments, compressed to ~65 KB: refused after decompression,
 * saying the limit; the same from memory. */
static void test_size_cap(void)
{
    char gz[300], line[1024];
    fdtd_workunit wu;
    orr_error err;
    snprintf(gz, sizeof gz, "%s/big.txt.gz", tmpdir);
    memset(line, ' ', sizeof line);
    memcpy(line, "# padding", 9);
    line[sizeof line - 1] = '\n';
    write_gz(gz, line, sizeof line, 65L * 1024);
    CU_ASSERT_EQUAL(fdtd_workunit_load(gz, &wu, &err), ORR_ERR_INPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "64 MiB"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, gz));
    unlink(gz);
    const size_t big = ((size_t)64 << 20) + 1;
    char *text = malloc(big);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    memset(text, '\n', big);
    CU_ASSERT_EQUAL(fdtd_workunit_parse("big", text, big, &wu, &err), ORR_ERR_INPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "at most 64 MiB"));
    free(text);
}

/* ---- bad work units ---- */

#define HEAD "orrery-fdtd 1\n"
#define GRID "grid 16 16 16\ncell 1e-3 1e-3 1e-3\nsteps 400\n"   /* lines 2-4 */
#define SRC "source waveform=gauss width=8\n"                     /* line 5 */
#define BASE HEAD GRID SRC                                        /* a line added: 6 */

typedef struct {
    const char *text;
    int line;
    const char *key;      /* "bad.txt:LINE: KEY: " must be in the message */
    const char *says;     /* and this */
} bad_case;

static const bad_case bad_cases[] = {
    /* issue 40: fields, norms and energies that cannot be finite */
    {HEAD GRID "source waveform=gauss width=8 amplitude=1e200\n", 5, "source amplitude",
     "the peak field 1e+200 V/m (|amplitude| times the waveform's peak) is above 1e+100"},
    {HEAD GRID "source waveform=dgauss width=8 amplitude=-1e308\n", 5, "source amplitude",
     "is above 1e+100, the most double precision carries"},
    {HEAD GRID "source waveform=table amplitude=1e60\ntable 0 1e50 0\n", 5, "source amplitude",
     "the peak field 1e+110 V/m (|amplitude| times the waveform's peak, the table's largest "
     "value)"},
    {HEAD GRID "source waveform=gauss width=8 amplitude=1e31\nprecision single\n", 5,
     "source amplitude", "is above 1e+30, the most single precision carries"},
    {HEAD "grid 16 16 16\ncell 1e90 1e90 1e90\nsteps 400\n" SRC, 5, "source amplitude",
     "in 5832 cells of 1e+270 m^3 (line 3), eps_r up to 1, gives energies near"},
    {HEAD GRID "source waveform=gauss width=8 amplitude=1e100\nmaterial m eps_r=1e150\n", 5,
     "source amplitude", "eps_r up to 1e+150, gives energies near"},
    /* the first statement; the file as a whole */
    {"", 0, "orrery-fdtd", "empty work unit"},
    {"# only a comment\n\n", 2, "orrery-fdtd", "empty work unit"},
    {"orrery-fdtd 2\n" GRID SRC, 1, "orrery-fdtd", "version '2' is not supported"},
    {"orrery-fdtd\n" GRID SRC, 1, "orrery-fdtd", "expected one value"},
    {"grid 16 16 16\n" HEAD, 1, "orrery-fdtd", "found 'grid'"},
    {BASE "frobnicate 3\n", 6, "frobnicate", "unknown statement"},
    {BASE "grid 8 8 8\n", 6, "grid", "given twice (first at line 2)"},
    {BASE "steps 10\n", 6, "steps", "given twice (first at line 4)"},
    {HEAD "cell 1e-3 1e-3 1e-3\nsteps 400\n" SRC "\n# end\n", 6, "grid", "missing (a required"},
    {HEAD GRID, 4, "source", "missing (a required statement)"},
    {HEAD "grid 16 16 16\nsteps 400\n" SRC, 4, "cell", "missing"},
    /* grid, cell, courant, steps */
    {HEAD "grid 16 0 16\n", 2, "grid", "0 is outside 1..8192"},
    {HEAD "grid 16 16\n", 2, "grid", "expected 3 values, found 2"},
    {HEAD "grid 16 16 8193\n", 2, "grid", "8193 is outside 1..8192"},
    {HEAD "cell 1e-3 1e-3x 1e-3\n", 2, "cell", "expected a finite number, found '1e-3x'"},
    {HEAD "cell 1e-3 inf 1e-3\n", 2, "cell", "found 'inf'"},
    {HEAD "cell nan 1e-3 1e-3\n", 2, "cell", "found 'nan'"},
    {HEAD "cell 1e-3 1e999 1e-3\n", 2, "cell", "found '1e999'"},
    {HEAD "cell 1e-3 -1e-3 1e-3\n", 2, "cell", "must be > 0"},
    {BASE "courant 1.01\n", 6, "courant", "1.01 is above the stability limit 1"},
    {BASE "courant 0\n", 6, "courant", "must be > 0"},
    {HEAD "steps 0\n", 2, "steps", "0 is outside 1..1000000000"},
    {HEAD "steps 1.5\n", 2, "steps", "expected a whole number, found '1.5'"},
    {HEAD "steps 99999999999999999999\n", 2, "steps", "expected a whole number"},
    /* boundary */
    {BASE "boundary absorbing\n", 6, "boundary", "expected thesis, pec or cpml, found 'absorbing'"},
    {BASE "boundary pec thickness=4\n", 6, "boundary thickness", "only with cpml"},
    {BASE "boundary cpml thickness=8\n", 6, "boundary thickness", "do not fit along x (nx = 16)"},
    {HEAD "grid 16 16 12\ncell 1 1 1\nsteps 9\n" SRC "boundary cpml thickness=6\n", 6,
     "boundary thickness", "2*6+1 = 13 cells do not fit along z (nz = 12)"},
    {HEAD "grid 16 16 12\ncell 1 1 1\nsteps 9\n" SRC "boundary cpml\n", 6, "boundary thickness",
     "2*10+1 = 21 cells do not fit along x"},
    {BASE "boundary cpml order=25\n", 6, "boundary order", "25 is outside 0..20"},
    {BASE "boundary cpml reflection=1\n", 6, "boundary reflection", "must be > 0 and < 1"},
    {BASE "boundary cpml alpha=-1\n", 6, "boundary alpha", "must be >= 0"},
    {BASE "boundary cpml frobs=1\n", 6, "boundary",
     "unknown key 'frobs' (expected thickness, order, reflection or alpha)"},
    {BASE "boundary cpml thickness=2 thickness=3\n", 6, "boundary thickness",
     "given twice on the line"},
    {BASE "boundary cpml thickness\n", 6, "boundary", "expected key=value, found 'thickness'"},
    /* source */
    {HEAD GRID "source width=8\n", 5, "source waveform", "missing (required)"},
    {HEAD GRID "source waveform=sine width=8\n", 5, "source waveform",
     "expected gauss, dgauss or table, found 'sine'"},
    {HEAD GRID "source waveform= width=8\n", 5, "source waveform", "has no value"},
    {HEAD GRID "source waveform=gauss width=8 component=hx\n", 5, "source component",
     "hard sources are E only"},
    {HEAD GRID "source waveform=gauss width=8 component=e\n", 5, "source component",
     "expected ex, ey or ez, found 'e'"},
    {HEAD GRID "source waveform=dgauss\n", 5, "source width",
     "missing (required with waveform=dgauss)"},
    {HEAD GRID "source waveform=gauss width=0\n", 5, "source width", "must be > 0"},
    {HEAD GRID "source waveform=gauss width=8 delay=nan\n", 5, "source delay", "found 'nan'"},
    {HEAD GRID "source waveform=gauss width=8 amplitude=1,0\n", 5, "source amplitude",
     "found '1,0'"},
    {HEAD GRID "source waveform=table width=3\ntable 1\n", 5, "source width",
     "not allowed with waveform=table"},
    {HEAD GRID "source waveform=table\n", 5, "source waveform",
     "needs the values on `table` lines"},
    {BASE "table 1 2\ntable 3\n", 6, "table", "only with the source's waveform=table"},
    {HEAD GRID "source waveform=table\ntable 1 2\ntable 3 inf\n", 7, "table", "found 'inf'"},
    {HEAD GRID "source waveform=table\ntable\n", 6, "table", "expected at least one value"},
    {HEAD GRID "source waveform=gauss width=8 release_after=401\n", 5, "source release_after",
     "401 is above steps (400)"},
    {HEAD GRID "source waveform=gauss width=8 release_after=-1\n", 5, "source release_after",
     "-1 is outside 0..1000000000"},
    {HEAD GRID "source waveform=gauss width=8 at=17,8,8\n", 5, "source at",
     "(17,8,8) is not a live ez cell of the thesis boundary (1..16, 1..16, 1..16)"},
    {HEAD GRID "boundary pec\nsource waveform=gauss width=8 component=ex at=8,8,17\n", 6,
     "source at", "not a live ex cell of the pec boundary (1..17, 1..16, 1..16)"},
    {HEAD GRID "source waveform=gauss width=8 at=0,8,8\n", 5, "source at", "is not a live"},
    {HEAD "grid 1 4 4\ncell 1 1 1\nsteps 9\n" SRC, 5, "source at", "(0,2,2) (the default)"},
    {HEAD GRID "source waveform=gauss width=8 at=1,2\n", 5, "source at",
     "expected three values separated by commas, found '1,2'"},
    {HEAD GRID "source waveform=gauss width=8 at=1,2,3,4\n", 5, "source at",
     "expected three values"},
    {HEAD GRID "source waveform=gauss width=8 at=1,,3\n", 5, "source at",
     "expected a whole number"},
    {BASE "source waveform=gauss width=8\n", 6, "source", "given twice (first at line 5)"},
    /* probes */
    {BASE "probe ez 8 8 18\n", 6, "probe", "k index 18 is outside 0..17"},
    {BASE "probe ex 1 2\n", 6, "probe", "expected 4 values, found 3"},
    {BASE "probe ez 1 2 -1\n", 6, "probe", "-1 is outside 0..8193"},
    {BASE "probe e 1 2 3\n", 6, "probe", "expected ex, ey, ez, hx, hy or hz, found 'e'"},
    /* energy, arithmetic, precision, snapshot */
    {BASE "energy every=401\n", 6, "energy every", "401 is above steps (400)"},
    {BASE "energy\n", 6, "energy every", "missing (required)"},
    {BASE "energy each=4\n", 6, "energy", "unknown key 'each'"},
    {BASE "arithmetic exact\n", 6, "arithmetic", "expected faithful or fast, found 'exact'"},
    {BASE "precision half\n", 6, "precision", "expected double or single, found 'half'"},
    {BASE "precision single double\n", 6, "precision", "expected 1 value, found 2"},
    {BASE "snapshot field=ez every=0\n", 6, "snapshot every", "0 is outside 1..8192"},
    {BASE "snapshot every=2\n", 6, "snapshot field", "missing (required)"},
    /* materials and regions */
    {BASE "material glass\n", 6, "material eps_r", "missing (required)"},
    {BASE "material glass eps_r=0\n", 6, "material eps_r", "must be > 0"},
    {BASE "material glass eps_r=2 sigma=-1\n", 6, "material sigma", "must be >= 0"},
    {BASE "material vacuum eps_r=1\n", 6, "material", "'vacuum' is reserved"},
    {BASE "material glass eps_r=2\nmaterial glass eps_r=3\n", 7, "material",
     "'glass' defined twice"},
    {BASE "material 9lives eps_r=2\n", 6, "material", "'9lives' is not a name"},
    {BASE "box material=glass from=0,0,0 to=1,1,1\nmaterial glass eps_r=2\n", 6, "box material",
     "'glass' is not a material defined above"},
    {BASE "material glass eps_r=2\nbox material=glass from=0,0,0 to=1,-1,1\n", 7, "box to",
     "y = -1 is below from's 0"},
    {BASE "box material=vacuum from=0,0,0\n", 6, "box to", "missing (required)"},
    {BASE "box material=vacuum from=0,0,0 to=1,1,1 at=2\n", 6, "box", "unknown key 'at'"},
    {BASE "sphere material=vacuum centre=0,0,0 radius=0\n", 6, "sphere radius", "must be > 0"},
    {BASE "sphere material=vacuum centre=0,0 radius=1\n", 6, "sphere centre",
     "expected three values"},
    {BASE "sphere material=vacuum center=0,0,0 radius=1\n", 6, "sphere", "unknown key 'center'"},
    /* params */
    {BASE "param cd 30\nparam cd 40\n", 7, "param", "'cd' given twice"},
    {BASE "param a-b 30\n", 6, "param", "'a-b' is not a name"},
    {BASE "param cd\n", 6, "param", "expected 2 values, found 1"},
    {BASE "param cd 0123456789012345678901234567890123456789012345678901234567890123\n", 6, "param",
     "is 64 characters; at most 63"},
};

static void check_bad(const char *text, size_t len, int line, const char *key, const char *says)
{
    fdtd_workunit wu;
    orr_error err;
    memset(&err, 0, sizeof err);
    orr_status s = fdtd_workunit_parse("bad.txt", text, len, &wu, &err);
    char where[128];
    snprintf(where, sizeof where, "bad.txt:%d: %s: ", line, key);
    const int ok = s == ORR_ERR_INPUT && orr_status_exit_code(s) == 65 &&
                   strstr(err.message, where) && strstr(err.message, says);
    if (!ok)
        printf("\n    want '%s...%s', got status %d, '%s'", where, says, (int)s, err.message);
    CU_ASSERT(ok);
    if (s == ORR_OK)
        fdtd_workunit_free(&wu);
}

static void test_bad_work_units(void)
{
    for (size_t i = 0; i < ORR_ARRAY_LEN(bad_cases); i++)
        check_bad(bad_cases[i].text, strlen(bad_cases[i].text), bad_cases[i].line,
                  bad_cases[i].key, bad_cases[i].says);
    printf("\n    %zu kinds of mistakes refused", ORR_ARRAY_LEN(bad_cases));
}

/* Limits that take many lines, and a NUL byte (only from memory: a file
 * with one is refused by io). */
static void test_bad_limits(void)
{
    static const char nul[] = BASE "probe ez 1 1\0 1\n";
    check_bad(nul, sizeof nul - 1, 6, "text", "NUL byte");
    size_t size = 64 * 32 + 256;
    char *text = malloc(size);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    int n = snprintf(text, size, BASE);
    for (int i = 0; i <= FDTD_MAX_PARAMS; i++)
        n += snprintf(text + n, size - (size_t)n, "param p%d %d\n", i, i);
    check_bad(text, (size_t)n, 6 + FDTD_MAX_PARAMS, "param", "more than 32 parameters");
    free(text);
}

int main(void)
{
    const char *data = getenv("ORR_FDTD_DATA");
    const char *src = getenv("srcdir");
    if (data)
        snprintf(datadir, sizeof datadir, "%s", data);
    else
        snprintf(datadir, sizeof datadir, "%s/tests/data/fdtd", src ? src : ".");
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(tmpdir, sizeof tmpdir, "%s/orrery-fdtd-XXXXXX", tmp);
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("fdtd work units (parse.c)", NULL, NULL);
    CU_add_test(s, "a minimal work unit: the documented defaults", test_defaults);
    CU_add_test(s, "every statement and key: the values written", test_every_value);
    CU_add_test(s, "a table over lines; live cells at the boundaries' edges", test_table_and_edges);
    CU_add_test(s, "field names", test_field_names);
    CU_add_test(s, "tests/data/fdtd: every sample loads", test_samples);
    CU_add_test(s, "tests/data/fdtd: the samples' values", test_sample_details);
    CU_add_test(s, "plain and gzip: the same work unit and hash", test_gzip);
    CU_add_test(s, "64 MiB cap, after decompression too", test_size_cap);
    CU_add_test(s, "bad work units: file:line: key, exit 65", test_bad_work_units);
    CU_add_test(s, "bad work units: parameter count, NUL byte", test_bad_limits);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
    CU_cleanup_registry();
    if (rmdir(tmpdir) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return failed ? 1 : 0;
}
