/* The MoM work-unit reader (common/mom/parse.c, docs/mom.md section 2):
 * good work units of each shape give the values written and the
 * documented defaults (wavenumber -> wavelength, echo from/to/step
 * expanded); plain and gzip files give the same work unit; the 64 MiB cap;
 * and every kind of bad work unit is refused with ORR_ERR_INPUT (exit 65)
 * and exactly the message "file:line: key: ..." the table gives; the
 * sample work units of tests/data/mom load. Run under ASan, it also checks
 * that nothing leaks on any path. The samples are read from
 * $ORR_MOM_DATA, else $srcdir/tests/data/mom (make check exports srcdir). */
#include <CUnit/Basic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "io/io.h"
#include "mom/mom.h"

static char tmpdir[256];
static char datadir[1024];

static orr_status parse(const char *text, mom_workunit *wu, orr_error *err)
{
    memset(err, 0, sizeof *err);
    return mom_workunit_parse("wu.txt", text, strlen(text), wu, err);
}

/* ---- good work units ---- */

#define MINIMAL "orrery-mom 1\ncircle radius=0.5\ncells 64\nincidence 0\n"

static void test_defaults(void)
{
    mom_workunit wu;
    orr_error err;
    CU_ASSERT_EQUAL_FATAL(parse(MINIMAL, &wu, &err), ORR_OK);
    CU_ASSERT_STRING_EQUAL(wu.path, "wu.txt");
    CU_ASSERT_EQUAL(wu.content_hash, orr_hash64(ORR_HASH64_INIT, MINIMAL, strlen(MINIMAL)));
    CU_ASSERT_EQUAL(wu.n_params, 0);
    CU_ASSERT_EQUAL(wu.wavelength, 1);
    CU_ASSERT(wu.shape == MOM_CIRCLE && wu.radius == 0.5);
    CU_ASSERT(wu.n_vertices == 0 && wu.vertex == NULL);
    CU_ASSERT(wu.cells == 64 && wu.density == 0);
    CU_ASSERT(wu.method == MOM_METHOD_MOM && wu.order == 3);
    CU_ASSERT_EQUAL_FATAL(wu.n_incidence, 1);
    CU_ASSERT_EQUAL(wu.incidence[0], 0);
    CU_ASSERT(wu.n_echo == 0 && wu.echo == NULL);
    CU_ASSERT(wu.solver == MOM_REFERENCE && wu.precision == MOM_DOUBLE);
    CU_ASSERT_EQUAL(wu.current_every, 0);
    CU_ASSERT_EQUAL(wu.far_field, MOM_FAR_CONSISTENT);
    mom_workunit_free(&wu);
    /* zeroed: freeing again is harmless */
    CU_ASSERT(wu.incidence == NULL && wu.n_incidence == 0);
    mom_workunit_free(&wu);
}

/* A circle with every statement that goes with it, CRLF ends, tabs,
 * comments and blank lines, in an order unlike the docs'. */
static const char circle_text[] =
    "# everything given\r\n"
    "orrery-mom 1   # the format\r\n"
    "\r\n"
    "current every=4\r\n"
    "echo 0 90\r\n"
    "param radius_wl 1.50\r\n"
    "param\tname_2   x=y,z\r\n"
    "incidence 0 30.5   # two\r\n"
    "precision single\r\n"
    "echo -45.25\t180\r\n"
    "wavenumber 4\r\n"
    "method lcn order=5\r\n"
    "density 20\r\n"
    "incidence -90\r\n"
    "solver faithful\r\n"
    "far_field consistent\r\n"
    "circle radius=1.5\r\n";

static void test_circle(void)
{
    mom_workunit wu;
    orr_error err;
    CU_ASSERT_EQUAL_FATAL(parse(circle_text, &wu, &err), ORR_OK);
    CU_ASSERT_EQUAL_FATAL(wu.n_params, 2);
    CU_ASSERT(strcmp(wu.param_name[0], "radius_wl") == 0 && strcmp(wu.param_text[0], "1.50") == 0);
    CU_ASSERT(strcmp(wu.param_name[1], "name_2") == 0 && strcmp(wu.param_text[1], "x=y,z") == 0);
    CU_ASSERT_EQUAL(wu.wavelength, 2 * M_PI / 4);   /* from the wavenumber */
    CU_ASSERT(wu.shape == MOM_CIRCLE && wu.radius == 1.5 && wu.n_vertices == 0);
    CU_ASSERT(wu.cells == 0 && wu.density == 20);
    CU_ASSERT(wu.method == MOM_METHOD_LCN && wu.order == 5);
    CU_ASSERT_EQUAL_FATAL(wu.n_incidence, 3);
    CU_ASSERT(wu.incidence[0] == 0 && wu.incidence[1] == 30.5 && wu.incidence[2] == -90);
    CU_ASSERT_EQUAL_FATAL(wu.n_echo, 4);
    CU_ASSERT(wu.echo[0] == 0 && wu.echo[1] == 90 && wu.echo[2] == -45.25 && wu.echo[3] == 180);
    CU_ASSERT(wu.solver == MOM_FAITHFUL && wu.precision == MOM_SINGLE);
    CU_ASSERT_EQUAL(wu.current_every, 4);
    CU_ASSERT_EQUAL(wu.far_field, MOM_FAR_CONSISTENT);
    mom_workunit_free(&wu);
}

/* far_field exact: MoM's flat-cell rule, kept as an option. */
static void test_far_field_exact(void)
{
    mom_workunit wu;
    orr_error err;
    CU_ASSERT_EQUAL_FATAL(parse(MINIMAL "far_field exact\nmethod mom\n", &wu, &err), ORR_OK);
    CU_ASSERT(wu.far_field == MOM_FAR_EXACT && wu.method == MOM_METHOD_MOM);
    mom_workunit_free(&wu);
}

/* A square, its echo angles from from/to/step, solver mixed. */
static const char polygon_text[] =
    "orrery-mom 1\n"
    "wavelength 0.25\n"
    "polygon   # the unit square\n"
    "vertex 0 0\n"
    "vertex 1 0\n"
    "vertex 1 1\n"
    "vertex 0 1\n"
    "cells 4\n"
    "method lcn\n"
    "incidence 45\n"
    "echo from=0 to=180 step=5\n"
    "solver mixed\n"
    "current\n";

static void test_polygon(void)
{
    mom_workunit wu;
    orr_error err;
    CU_ASSERT_EQUAL_FATAL(parse(polygon_text, &wu, &err), ORR_OK);
    CU_ASSERT(wu.wavelength == 0.25 && wu.shape == MOM_POLYGON && wu.radius == 0);
    CU_ASSERT_EQUAL_FATAL(wu.n_vertices, 4);
    static const double square[8] = {0, 0, 1, 0, 1, 1, 0, 1};
    CU_ASSERT(memcmp(wu.vertex, square, sizeof square) == 0);
    CU_ASSERT(wu.cells == 4 && wu.density == 0);          /* one cell an edge */
    CU_ASSERT(wu.method == MOM_METHOD_LCN && wu.order == 3);   /* the default order */
    CU_ASSERT(wu.n_incidence == 1 && wu.incidence[0] == 45);
    CU_ASSERT_EQUAL_FATAL(wu.n_echo, 37);
    for (int i = 0; i < 37; i++)
        CU_ASSERT_EQUAL(wu.echo[i], 0 + i * 5.0);
    CU_ASSERT(wu.solver == MOM_MIXED && wu.precision == MOM_DOUBLE);
    CU_ASSERT_EQUAL(wu.current_every, 1);   /* `current` alone: every unknown */
    mom_workunit_free(&wu);
}

/* from/to/step: rounding's worth over allowed; from = to is one angle. */
static void test_echo_ranges(void)
{
    static const struct {
        const char *range;
        int count;
        double first, step;
    } ranges[] = {
        {"from=0 to=0.3 step=0.1", 4, 0, 0.1},   /* 0.3/0.1 = 2.9999999999999996 */
        {"from=10 to=10 step=1", 1, 10, 1},
        {"from=-90 to=90 step=45", 5, -90, 45},
        {"from=0 to=359.9 step=1", 360, 0, 1},
        {"from=0 to=1 step=3", 1, 0, 3},
    };
    for (size_t r = 0; r < ORR_ARRAY_LEN(ranges); r++) {
        char text[256];
        mom_workunit wu;
        orr_error err;
        snprintf(text, sizeof text, MINIMAL "echo %s\n", ranges[r].range);
        CU_ASSERT_EQUAL_FATAL(parse(text, &wu, &err), ORR_OK);
        CU_ASSERT_EQUAL(wu.n_echo, ranges[r].count);
        for (int i = 0; i < wu.n_echo && i < ranges[r].count; i++)
            CU_ASSERT_EQUAL(wu.echo[i], ranges[r].first + i * ranges[r].step);
        mom_workunit_free(&wu);
    }
}

/* Shapes at the rules' edges that are allowed: non-convex (a notch to the
 * centre), collinear neighbours, a triangle, cells = vertices, the largest
 * order, a polygon's vertices with other statements between them. */
static void test_polygon_edges(void)
{
    static const struct {
        const char *text;
        int n_vertices;
    } ok[] = {
        {"polygon\nvertex 0 0\nvertex 4 0\nvertex 4 4\nvertex 0 4\nvertex 2 2\ncells 5\n", 5},
        {"polygon\nvertex 0 0\nvertex 1 0\nvertex 2 0\nvertex 2 2\nvertex 0 2\ncells 99\n", 5},
        {"polygon\nvertex 0 0\nvertex 1 0\nvertex 0 1\ndensity 10\nmethod lcn order=10\n", 3},
        {"polygon\nvertex -1 -1\ncells 3\nvertex 1e-3 -1\n# a comment\nvertex 0 1e3\n", 3},
    };
    for (size_t i = 0; i < ORR_ARRAY_LEN(ok); i++) {
        char text[512];
        mom_workunit wu;
        orr_error err;
        snprintf(text, sizeof text, "orrery-mom 1\nincidence 0\n%s", ok[i].text);
        orr_status s = parse(text, &wu, &err);
        if (s != ORR_OK)
            printf("\n    polygon %zu: %s", i, err.message);
        CU_ASSERT_EQUAL(s, ORR_OK);
        if (s == ORR_OK) {
            CU_ASSERT(wu.shape == MOM_POLYGON && wu.n_vertices == ok[i].n_vertices);
            mom_workunit_free(&wu);
        }
    }
}

/* The example of docs/mom.md section 2. */
static const char example_text[] =
    "orrery-mom 1\n"
    "# a PEC circular cylinder one wavelength in radius\n"
    "param case circle_ka_6.28\n"
    "wavelength 1\n"
    "circle radius=1\n"
    "density 20\n"
    "incidence 0\n"
    "echo from=0 to=180 step=5\n"
    "solver reference\n";

static void test_example(void)
{
    mom_workunit wu;
    orr_error err;
    CU_ASSERT_EQUAL_FATAL(parse(example_text, &wu, &err), ORR_OK);
    CU_ASSERT(wu.n_params == 1 && strcmp(wu.param_text[0], "circle_ka_6.28") == 0);
    CU_ASSERT(wu.wavelength == 1 && wu.shape == MOM_CIRCLE && wu.radius == 1);
    CU_ASSERT(wu.density == 20 && wu.cells == 0 && wu.n_incidence == 1 && wu.n_echo == 37);
    CU_ASSERT(wu.echo[36] == 180 && wu.solver == MOM_REFERENCE && wu.method == MOM_METHOD_MOM);
    mom_workunit_free(&wu);
}

/* ---- files: the samples, gzip, the cap ---- */

/* Every sample loads, its `param case` naming it. */
static void test_samples(void)
{
    static const char *const samples[] = {"circle_mom", "circle_lcn", "square_mixed",
                                          "lshape_faithful", "kill_circle"};
    for (size_t i = 0; i < ORR_ARRAY_LEN(samples); i++) {
        char path[1200];
        mom_workunit wu;
        orr_error err;
        snprintf(path, sizeof path, "%s/%s.txt", datadir, samples[i]);
        orr_status s = mom_workunit_load(path, &wu, &err);
        if (s != ORR_OK)
            printf("\n    %s: %s", samples[i], err.message);
        CU_ASSERT_EQUAL_FATAL(s, ORR_OK);
        CU_ASSERT(wu.n_params == 1 && strcmp(wu.param_name[0], "case") == 0 &&
                  strcmp(wu.param_text[0], samples[i]) == 0);
        CU_ASSERT(wu.n_incidence >= 1 && (wu.cells > 0) != (wu.density > 0));
        mom_workunit_free(&wu);
    }
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
    mom_workunit a, b;
    orr_error err;
    snprintf(plain, sizeof plain, "%s/wu.txt", tmpdir);
    snprintf(gz, sizeof gz, "%s/wu.txt.gz", tmpdir);
    FILE *f = fopen(plain, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(polygon_text, f);
    fclose(f);
    write_gz(gz, polygon_text, strlen(polygon_text), 1);
    CU_ASSERT_EQUAL_FATAL(mom_workunit_load(plain, &a, &err), ORR_OK);
    CU_ASSERT_EQUAL_FATAL(mom_workunit_load(gz, &b, &err), ORR_OK);
    CU_ASSERT_STRING_EQUAL(a.path, plain);
    CU_ASSERT_STRING_EQUAL(b.path, gz);
    CU_ASSERT_EQUAL(a.content_hash,
                    orr_hash64(ORR_HASH64_INIT, polygon_text, strlen(polygon_text)));
    CU_ASSERT_EQUAL(a.content_hash, b.content_hash);
    CU_ASSERT(a.n_vertices == 4 && b.n_vertices == 4 && a.n_echo == 37 && b.n_echo == 37);
    CU_ASSERT(memcmp(a.vertex, b.vertex, 8 * sizeof *a.vertex) == 0 &&
              memcmp(a.echo, b.echo, 37 * sizeof *a.echo) == 0);
    mom_workunit_free(&a);
    mom_workunit_free(&b);
    /* a bad unit compressed: the same message, naming the .gz file */
    write_gz(gz, "orrery-mom 1\ncircle radius=0\n", 29, 1);
    CU_ASSERT_EQUAL(mom_workunit_load(gz, &a, &err), ORR_ERR_INPUT);
    char want[400];
    snprintf(want, sizeof want, "%s:2: circle radius: 0 must be > 0", gz);
    CU_ASSERT_STRING_EQUAL(err.message, want);
    unlink(plain);
    unlink(gz);
    CU_ASSERT_EQUAL(mom_workunit_load(plain, &a, &err), ORR_ERR_OPEN);   /* gone */
}

/* 65 MiB of comments, compressed to ~65 KB: refused after decompression,
 * saying the limit; the same from memory. */
static void test_size_cap(void)
{
    char gz[300], line[1024], want[400];
    mom_workunit wu;
    orr_error err;
    snprintf(gz, sizeof gz, "%s/big.txt.gz", tmpdir);
    memset(line, ' ', sizeof line);
    memcpy(line, "# padding", 9);
    line[sizeof line - 1] = '\n';
    write_gz(gz, line, sizeof line, 65L * 1024);
    CU_ASSERT_EQUAL(mom_workunit_load(gz, &wu, &err), ORR_ERR_INPUT);
    snprintf(want, sizeof want, "%s: larger than 64 MiB (after decompression): a work unit is at "
             "most 64 MiB", gz);
    CU_ASSERT_STRING_EQUAL(err.message, want);
    unlink(gz);
    const size_t big = ((size_t)64 << 20) + 1;
    char *text = malloc(big);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    memset(text, '\n', big);
    CU_ASSERT_EQUAL(mom_workunit_parse("big", text, big, &wu, &err), ORR_ERR_INPUT);
    CU_ASSERT_STRING_EQUAL(err.message, "big: 67108865 bytes: a work unit is at most 64 MiB");
    free(text);
}

/* ---- bad work units ---- */

#define HEAD "orrery-mom 1\n"
#define CIRC "circle radius=1\n"   /* line 2 */
#define CELLS "cells 64\n"         /* line 3 */
#define INC "incidence 0\n"        /* line 4 */
#define BASE HEAD CIRC CELLS INC   /* a line added: 5 */
#define SQUARE "polygon\nvertex 0 0\nvertex 1 0\nvertex 1 1\nvertex 0 1\n"   /* lines 2-6 */
#define REST "cells 64\nincidence 0\n"
#define NOT_SIMPLE ": the polygon is not simple (edges meet only where neighbours share a vertex)"
#define ONE_SHAPE ": a work unit has one shape"
#define ONLY_ECHO "a from= to= step= line is the only `echo` line (another on line "
#define MIXED "single is not with solver mixed (line "
#define MIXED_WHY "): mixed is single, then double, by definition"
#define EXACT_LCN "exact is not with method lcn (line "
#define EXACT_LCN_WHY "): it integrates MoM's pulses over flat cells; LCN's far field is its own " \
                      "quadrature"

typedef struct {
    const char *text;
    const char *message;   /* exactly, the file being bad.txt */
} bad_case;

static const bad_case bad_cases[] = {
    /* the first statement; the file as a whole */
    {"", "bad.txt:0: orrery-mom: missing: an empty work unit (the first statement is "
         "'orrery-mom 1')"},
    {"# only a comment\n\n", "bad.txt:2: orrery-mom: missing: an empty work unit (the first "
                             "statement is 'orrery-mom 1')"},
    {"orrery-mom 2\n" CIRC CELLS INC,
     "bad.txt:1: orrery-mom: version '2' is not supported (this app reads version 1)"},
    {"orrery-mom 1 1\n", "bad.txt:1: orrery-mom: expected one value, the version (1), found 2"},
    {"orrery-fdtd 1\n" CIRC, "bad.txt:1: orrery-mom: expected 'orrery-mom 1' (the format and its "
                             "version) as the first statement, found 'orrery-fdtd'"},
    {BASE "frobnicate 3\n", "bad.txt:5: frobnicate: unknown statement"},
    {HEAD "cells 64\nincidence 0\n\n# end\n",
     "bad.txt:5: circle or polygon: missing (a required statement)"},
    {HEAD CIRC INC, "bad.txt:3: cells or density: missing (a required statement)"},
    {HEAD CIRC CELLS, "bad.txt:3: incidence: missing (a required statement)"},
    /* wavelength, wavenumber */
    {BASE "wavelength 0\n", "bad.txt:5: wavelength: 0 must be > 0"},
    {BASE "wavelength inf\n", "bad.txt:5: wavelength: expected a finite number, found 'inf'"},
    {BASE "wavelength 1e-3x\n", "bad.txt:5: wavelength: expected a finite number, found '1e-3x'"},
    {BASE "wavelength 1 2\n", "bad.txt:5: wavelength: expected 1 value, found 2"},
    {BASE "wavelength 1\nwavelength 2\n", "bad.txt:6: wavelength: given twice (first at line 5)"},
    {BASE "wavelength 1\nwavenumber 2\n",
     "bad.txt:6: wavenumber: not with wavelength (line 5): give one of them"},
    {BASE "wavenumber 2\nwavelength 1\n",
     "bad.txt:6: wavelength: not with wavenumber (line 5): give one of them"},
    {BASE "wavenumber -1\n", "bad.txt:5: wavenumber: -1 must be > 0"},
    {BASE "wavenumber nan\n", "bad.txt:5: wavenumber: expected a finite number, found 'nan'"},
    {BASE "wavenumber 1e-310\n",
     "bad.txt:5: wavenumber: 1e-310 gives the wavelength 2 pi / k = inf, outside 1e-100..1e+100 "
     "(lengths whose squares the double range holds)"},
    /* issue 40: the echo widths overflowed at wavelength 1e160 */
    {BASE "wavenumber 1e101\n", "bad.txt:5: wavenumber: 1e+101 gives the wavelength 2 pi / k = "
     "6.28319e-101, outside 1e-100..1e+100 (lengths whose squares the double range holds)"},
    {BASE "wavelength 1e160\n", "bad.txt:5: wavelength: 1e+160 is outside 1e-100..1e+100 "
     "(lengths whose squares the double range holds)"},
    {BASE "wavelength 1e-101\n", "bad.txt:5: wavelength: 1e-101 is outside 1e-100..1e+100 "
     "(lengths whose squares the double range holds)"},
    {HEAD "circle radius=1e-200\n" CELLS INC, "bad.txt:2: circle radius: 1e-200 is outside "
     "1e-100..1e+100 (lengths whose squares the double range holds)"},
    /* issue 40: echo angles of 1e308 degrees wrote nan */
    {BASE "echo 0 1e308\n", "bad.txt:5: echo: 1e+308 degrees: at most 1e+06 in magnitude (larger "
     "angles lose their precision in radians, and overflow)"},
    {BASE "echo 0\necho -1000001\n", "bad.txt:6: echo: -1000001 degrees: at most 1e+06 in "
     "magnitude (larger angles lose their precision in radians, and overflow)"},
    {HEAD CIRC CELLS "incidence -1e308\n", "bad.txt:4: incidence: -1e+308 degrees: at most 1e+06 "
     "in magnitude (larger angles lose their precision in radians, and overflow)"},
    {BASE "echo from=-1e7 to=0 step=1e3\n", "bad.txt:5: echo from: -10000000 degrees: at most 1e+06 "
     "in magnitude (larger angles lose their precision in radians, and overflow)"},
    /* circle */
    {HEAD "circle\n" CELLS INC, "bad.txt:2: circle radius: missing (required)"},
    {HEAD "circle 1\n", "bad.txt:2: circle: expected key=value, found '1'"},
    {HEAD "circle radius=-2\n", "bad.txt:2: circle radius: -2 must be > 0"},
    {HEAD "circle radius=1e999\n",
     "bad.txt:2: circle radius: expected a finite number, found '1e999'"},
    {HEAD "circle radius=1 r=2\n", "bad.txt:2: circle: unknown key 'r' (expected radius)"},
    {HEAD "circle radius=\n", "bad.txt:2: circle radius: has no value"},
    {HEAD "circle radius=1 radius=2\n", "bad.txt:2: circle radius: given twice on the line"},
    {BASE "circle radius=2\n", "bad.txt:5: circle: given twice (first at line 2)"},
    /* polygon and vertex */
    {BASE "polygon\n", "bad.txt:5: polygon: not with circle (line 2)" ONE_SHAPE},
    {HEAD SQUARE "circle radius=1\n", "bad.txt:7: circle: not with polygon (line 2)" ONE_SHAPE},
    {HEAD SQUARE "polygon\n", "bad.txt:7: polygon: given twice (first at line 2)"},
    {HEAD "polygon 4\n", "bad.txt:2: polygon: expected 0 values, found 1"},
    {HEAD "vertex 0 0\npolygon\n", "bad.txt:2: vertex: no `polygon` line above it (vertices "
                                   "follow a `polygon` line)"},
    {BASE "vertex 0 0\n", "bad.txt:5: vertex: no `polygon` line above it (vertices follow a "
                          "`polygon` line)"},
    {HEAD "polygon\nvertex 0\n", "bad.txt:3: vertex: expected 2 values, found 1"},
    {HEAD "polygon\nvertex 0 0 0\n", "bad.txt:3: vertex: expected 2 values, found 3"},
    {HEAD "polygon\nvertex 0 nan\n", "bad.txt:3: vertex: expected a finite number, found 'nan'"},
    {HEAD "polygon\n" REST, "bad.txt:2: polygon: 0 vertices; at least 3 (`vertex X Y` lines "
                            "after it)"},
    {HEAD "polygon\nvertex 0 0\n" REST, "bad.txt:2: polygon: 1 vertex; at least 3 (`vertex X Y` "
                                        "lines after it)"},
    {HEAD "polygon\nvertex 0 0\nvertex 1 0\n" REST,
     "bad.txt:2: polygon: 2 vertices; at least 3 (`vertex X Y` lines after it)"},
    {HEAD "polygon\nvertex 0 0\nvertex 0 1\nvertex 1 1\nvertex 1 0\n" REST,
     "bad.txt:2: polygon: the vertices go clockwise (signed area -1); list them "
     "counter-clockwise"},
    {HEAD "polygon\nvertex 0 0\nvertex 1 0\nvertex 2 0\n" REST,
     "bad.txt:2: polygon: the vertices go clockwise (signed area 0); list them "
     "counter-clockwise"},
    {HEAD "polygon\nvertex 0 0\nvertex 1e300 0\nvertex 1e300 1e300\n" REST,
     "bad.txt:4: vertex: 1e+300: a coordinate is 0 or 1e-100..1e+100 in magnitude (lengths "
     "whose squares the double range holds)"},
    {HEAD "polygon\nvertex 0 0\nvertex 1 0\nvertex 1 -1e-300\n" REST,
     "bad.txt:5: vertex: -1e-300: a coordinate is 0 or 1e-100..1e+100 in magnitude (lengths "
     "whose squares the double range holds)"},
    {HEAD "polygon\nvertex 0 0\nvertex 1 0\nvertex 1 0\nvertex 0 1\n" REST,
     "bad.txt:5: vertex: (1, 0) is the vertex of line 4 again: a zero-length edge"},
    {HEAD "polygon\nvertex 0 0\nvertex 1 0\nvertex 0 1\nvertex 0 0\n" REST,
     "bad.txt:6: vertex: (0, 0) is the vertex of line 3 again: a zero-length edge"},
    /* a bow tie: edges 0 and 2 cross */
    {HEAD "polygon\nvertex 0 0\nvertex 1 1\nvertex 1 0\nvertex 0 1\n" REST,
     "bad.txt:5: vertex: the edge from line 5 to line 6 meets the edge from line 3 to line 4"
     NOT_SIMPLE},
    /* vertex 3 on edge 0: they touch */
    {HEAD "polygon\nvertex 0 0\nvertex 4 0\nvertex 4 4\nvertex 2 0\n" REST,
     "bad.txt:5: vertex: the edge from line 5 to line 6 meets the edge from line 3 to line 4"
     NOT_SIMPLE},
    /* the closing edge (vertex 4 back to vertex 0) crosses edge 2 */
    {HEAD "polygon\nvertex 0 0\nvertex 4 0\nvertex 4 4\nvertex 2 4\nvertex 3 5\n" REST,
     "bad.txt:7: vertex: the edge from line 7 to line 3 meets the edge from line 5 to line 6"
     NOT_SIMPLE},
    /* a vertex visited twice */
    {HEAD "polygon\nvertex 0 0\nvertex 2 0\nvertex 1 1\nvertex 2 2\nvertex 0 2\nvertex 1 1\n" REST,
     "bad.txt:7: vertex: the edge from line 7 to line 8 meets the edge from line 4 to line 5"
     NOT_SIMPLE},
    /* cells, density */
    {HEAD CIRC "cells 2\n" INC, "bad.txt:3: cells: 2 is outside 3..200000"},
    {HEAD CIRC "cells 200001\n" INC, "bad.txt:3: cells: 200001 is outside 3..200000"},
    {HEAD CIRC "cells 64.5\n" INC, "bad.txt:3: cells: expected a whole number, found '64.5'"},
    {HEAD CIRC "cells 4e2\n" INC, "bad.txt:3: cells: expected a whole number, found '4e2'"},
    {HEAD CIRC "density 20\ncells 64\n",
     "bad.txt:4: cells: not with density (line 3): give one of them"},
    {HEAD CIRC "cells 64\ndensity 20\n",
     "bad.txt:4: density: not with cells (line 3): give one of them"},
    {HEAD CIRC "density 0\n", "bad.txt:3: density: 0 must be > 0"},
    {HEAD CIRC "density -inf\n", "bad.txt:3: density: expected a finite number, found '-inf'"},
    {HEAD SQUARE "cells 3\nincidence 0\n",
     "bad.txt:7: cells: 3 is below the polygon's 4 vertices (every edge needs a cell)"},
    /* method */
    {BASE "method fmm\n", "bad.txt:5: method: expected mom or lcn, found 'fmm'"},
    {BASE "method\n", "bad.txt:5: method: expected mom or lcn"},
    {BASE "method mom order=3\n", "bad.txt:5: method order: only with lcn (this method is mom)"},
    {BASE "method lcn order=11\n", "bad.txt:5: method order: 11 is outside 1..10"},
    {BASE "method lcn order=0\n", "bad.txt:5: method order: 0 is outside 1..10"},
    {BASE "method lcn order=2.5\n",
     "bad.txt:5: method order: expected a whole number, found '2.5'"},
    {BASE "method lcn points=3\n", "bad.txt:5: method: unknown key 'points' (expected order)"},
    {BASE "method lcn\nmethod mom\n", "bad.txt:6: method: given twice (first at line 5)"},
    /* incidence, echo */
    {HEAD CIRC CELLS "incidence\n", "bad.txt:4: incidence: expected at least one angle (degrees)"},
    {HEAD CIRC CELLS "incidence 0 1e999\n",
     "bad.txt:4: incidence: expected a finite number, found '1e999'"},
    {HEAD CIRC CELLS "incidence 0,90\n",
     "bad.txt:4: incidence: expected a finite number, found '0,90'"},
    {BASE "echo 0 10 x\n", "bad.txt:5: echo: expected a finite number, found 'x'"},
    {BASE "echo\n", "bad.txt:5: echo: expected angles (degrees), or from=A to=B step=S"},
    {BASE "echo from=0 to=180\n", "bad.txt:5: echo step: missing (required)"},
    {BASE "echo from=0 to=180 step=0\n", "bad.txt:5: echo step: 0 must be > 0"},
    {BASE "echo from=0 to=180 step=-5\n", "bad.txt:5: echo step: -5 must be > 0"},
    {BASE "echo from=0 to=x step=5\n", "bad.txt:5: echo to: expected a finite number, found 'x'"},
    {BASE "echo from=10 to=0 step=1\n", "bad.txt:5: echo to: 0 is below from's 10"},
    {BASE "echo from=0 to=1e6 step=1\n",
     "bad.txt:5: echo: from=0 to=1e+06 step=1 gives 1000001 angles; at most 100000"},
    {BASE "echo 0 90\necho from=0 to=180 step=5\n", "bad.txt:6: echo: " ONLY_ECHO "5)"},
    {BASE "echo from=0 to=180 step=5\necho 0\n", "bad.txt:6: echo: " ONLY_ECHO "5)"},
    {BASE "echo from=0 to=90 step=5\n\necho from=90 to=180 step=5\n",
     "bad.txt:7: echo: " ONLY_ECHO "5)"},
    {BASE "echo 0 from=1 to=2 step=1\n", "bad.txt:5: echo: expected key=value, found '0'"},
    {BASE "echo from=0 to=1 step=1 by=2\n",
     "bad.txt:5: echo: unknown key 'by' (expected from, to or step)"},
    /* solver, precision, current */
    {BASE "solver lu\n", "bad.txt:5: solver: expected reference, faithful or mixed, found 'lu'"},
    {BASE "solver\n", "bad.txt:5: solver: expected 1 value, found 0"},
    {BASE "solver faithful\nsolver mixed\n", "bad.txt:6: solver: given twice (first at line 5)"},
    {BASE "precision half\n", "bad.txt:5: precision: expected double or single, found 'half'"},
    {BASE "solver mixed\nprecision single\n", "bad.txt:6: precision: " MIXED "5" MIXED_WHY},
    {BASE "precision single\nsolver mixed\n", "bad.txt:5: precision: " MIXED "6" MIXED_WHY},
    {BASE "current every=0\n", "bad.txt:5: current every: 0 is outside 1..200000"},
    {BASE "current 4\n", "bad.txt:5: current: expected key=value, found '4'"},
    {BASE "current every=1 every=2\n", "bad.txt:5: current every: given twice on the line"},
    {BASE "current\ncurrent\n", "bad.txt:6: current: given twice (first at line 5)"},
    /* far_field */
    {BASE "far_field midpoint\n",
     "bad.txt:5: far_field: expected consistent or exact, found 'midpoint'"},
    {BASE "far_field\n", "bad.txt:5: far_field: expected 1 value, found 0"},
    {BASE "far_field exact consistent\n", "bad.txt:5: far_field: expected 1 value, found 2"},
    {BASE "far_field exact\nfar_field exact\n",
     "bad.txt:6: far_field: given twice (first at line 5)"},
    {BASE "far_field exact\nmethod lcn\n", "bad.txt:5: far_field: " EXACT_LCN "6" EXACT_LCN_WHY},
    {BASE "method lcn order=2\nfar_field exact\n",
     "bad.txt:6: far_field: " EXACT_LCN "5" EXACT_LCN_WHY},
    /* params */
    {BASE "param a 1\nparam a 2\n", "bad.txt:6: param: 'a' given twice"},
    {BASE "param 1a 2\n", "bad.txt:5: param: '1a' is not a name ([A-Za-z_][A-Za-z0-9_]*, at most "
                          "32 characters)"},
    {BASE "param a\n", "bad.txt:5: param: expected 2 values, found 1"},
    {BASE "param v 0123456789012345678901234567890123456789012345678901234567890123\n",
     "bad.txt:5: param: the value of 'v' is 64 characters; at most 63"},
};

static void check_bad(const char *text, size_t len, const char *message)
{
    mom_workunit wu;
    orr_error err;
    memset(&err, 0, sizeof err);
    orr_status s = mom_workunit_parse("bad.txt", text, len, &wu, &err);
    const int ok = s == ORR_ERR_INPUT && orr_status_exit_code(s) == 65 &&
                   strcmp(err.message, message) == 0;
    if (!ok)
        printf("\n    want '%s',\n     got status %d, '%s'", message, (int)s, err.message);
    CU_ASSERT(ok);
    if (s == ORR_OK)
        mom_workunit_free(&wu);
    else   /* a refused work unit is freed and zeroed */
        CU_ASSERT(wu.vertex == NULL && wu.incidence == NULL && wu.echo == NULL);
}

static void test_bad_work_units(void)
{
    for (size_t i = 0; i < ORR_ARRAY_LEN(bad_cases); i++)
        check_bad(bad_cases[i].text, strlen(bad_cases[i].text), bad_cases[i].message);
    printf("\n    %zu kinds of mistakes refused", ORR_ARRAY_LEN(bad_cases));
}

/* Limits that take many lines or values, and a NUL byte (only from
 * memory: a file with one is refused by io). */
static void test_bad_limits(void)
{
    static const char nul[] = BASE "echo 0 1\0 2\n";
    check_bad(nul, sizeof nul - 1, "bad.txt:5: text: binary data (a NUL byte) in a text file");

    size_t size = 64 * 40 + 256;
    char *text = malloc(size);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    int n = snprintf(text, size, BASE);
    for (int i = 0; i <= MOM_MAX_PARAMS; i++)
        n += snprintf(text + n, size - (size_t)n, "param p%d %d\n", i, i);
    check_bad(text, (size_t)n, "bad.txt:37: param: more than 32 parameters");
    free(text);

    /* MOM_MAX_ANGLES incidence angles are allowed, one more is not */
    size = 2 * (size_t)MOM_MAX_ANGLES + 256;
    text = malloc(size);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    n = snprintf(text, size, HEAD CIRC CELLS "incidence");
    for (int i = 0; i < MOM_MAX_ANGLES - 1; i++)
        text[n++] = ' ', text[n++] = '1';
    n += snprintf(text + n, size - (size_t)n, "\nincidence 2\n");
    mom_workunit wu;
    orr_error err;
    CU_ASSERT_EQUAL_FATAL(mom_workunit_parse("big.txt", text, (size_t)n, &wu, &err), ORR_OK);
    CU_ASSERT(wu.n_incidence == MOM_MAX_ANGLES && wu.incidence[MOM_MAX_ANGLES - 1] == 2);
    mom_workunit_free(&wu);
    n += snprintf(text + n, size - (size_t)n, "incidence 3\n");
    check_bad(text, (size_t)n, "bad.txt:6: incidence: more than 100000 angles");
    n = snprintf(text, size, BASE "echo 0\necho");
    for (int i = 0; i < MOM_MAX_ANGLES; i++)
        text[n++] = ' ', text[n++] = '1';
    text[n++] = '\n';
    check_bad(text, (size_t)n, "bad.txt:6: echo: more than 100000 angles");
    free(text);

    /* MOM_MAX_VERTICES + 1 vertices, counter-clockwise round a circle */
    size = 64 * ((size_t)MOM_MAX_VERTICES + 1) + 256;
    text = malloc(size);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    n = snprintf(text, size, HEAD "polygon\n");
    for (int i = 0; i <= MOM_MAX_VERTICES; i++) {
        const double a = 2 * M_PI * i / (MOM_MAX_VERTICES + 1);
        n += snprintf(text + n, size - (size_t)n, "vertex %.17g %.17g\n", cos(a), sin(a));
    }
    check_bad(text, (size_t)n, "bad.txt:100003: vertex: more than 100000 vertices");
    free(text);
}

/* The largest polygon allowed: the crossing check must stay quick (edges
 * sorted by x, not every pair). */
static void test_large_polygon(void)
{
    size_t size = 64 * (size_t)MOM_MAX_VERTICES + 256;
    char *text = malloc(size);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    int n = snprintf(text, size, HEAD "density 10\nincidence 0\npolygon\n");
    for (int i = 0; i < MOM_MAX_VERTICES; i++) {
        const double a = 2 * M_PI * i / MOM_MAX_VERTICES;
        n += snprintf(text + n, size - (size_t)n, "vertex %.17g %.17g\n", cos(a), sin(a));
    }
    mom_workunit wu;
    orr_error err;
    orr_status s = mom_workunit_parse("big.txt", text, (size_t)n, &wu, &err);
    if (s != ORR_OK)
        printf("\n    %s", err.message);
    CU_ASSERT_EQUAL_FATAL(s, ORR_OK);
    CU_ASSERT(wu.n_vertices == MOM_MAX_VERTICES && wu.vertex[0] == 1 && wu.vertex[1] == 0);
    mom_workunit_free(&wu);
    free(text);
}

int main(void)
{
    const char *data = getenv("ORR_MOM_DATA");
    const char *src = getenv("srcdir");
    if (data)
        snprintf(datadir, sizeof datadir, "%s", data);
    else
        snprintf(datadir, sizeof datadir, "%s/tests/data/mom", src ? src : ".");
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(tmpdir, sizeof tmpdir, "%s/orrery-mom-XXXXXX", tmp);
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("mom work units (parse.c)", NULL, NULL);
    CU_add_test(s, "a minimal work unit: the documented defaults", test_defaults);
    CU_add_test(s, "a circle, every statement: the values written", test_circle);
    CU_add_test(s, "a polygon, echo from/to/step: the values written", test_polygon);
    CU_add_test(s, "far_field exact with method mom", test_far_field_exact);
    CU_add_test(s, "echo from/to/step: the angles", test_echo_ranges);
    CU_add_test(s, "polygons at the rules' edges", test_polygon_edges);
    CU_add_test(s, "docs/mom.md's example", test_example);
    CU_add_test(s, "tests/data/mom: every sample loads", test_samples);
    CU_add_test(s, "plain and gzip: the same work unit and hash", test_gzip);
    CU_add_test(s, "64 MiB cap, after decompression too", test_size_cap);
    CU_add_test(s, "bad work units: file:line: key: message, exit 65", test_bad_work_units);
    CU_add_test(s, "bad work units: counts, NUL byte", test_bad_limits);
    CU_add_test(s, "a polygon of the most vertices", test_large_polygon);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
    CU_cleanup_registry();
    if (rmdir(tmpdir) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return failed ? 1 : 0;
}
