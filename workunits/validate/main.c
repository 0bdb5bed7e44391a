/* orrery-validate: separation, diffraction, fdtd and mom results for
 * BOINC's stock script_validator. This file: what the program does and
 * main(); driver.c runs it over the registry's kinds (kinds.c).
 *
 *   orrery-validate [OPTIONS] init FILES           is FILES a complete result?
 *   orrery-validate [OPTIONS] compare FILES1 FILES2  do two results agree?
 *   orrery-validate [OPTIONS] canonical FILES      init, then FILE as JSON on
 *                                                  stdout (orrery-assimilate's
 *                                                  one reader; "canonical:"
 *                                                  below)
 *   orrery-validate-init [OPTIONS] FILE            the same, through the links
 *   orrery-validate-compare [OPTIONS] FILE1 FILE2  that script_validator runs
 *
 * OPTIONS: --config FILE, and each kind's tolerances as options:
 * --likelihood-tolerance X, --integral-tolerance X (separation),
 * --r00-tolerance X, --efficiency-tolerance X (diffraction),
 * --echo-db-tolerance X, --echo-sigma-tolerance X,
 * --echo-db-tolerance-single X, --echo-sigma-tolerance-single X,
 * --current-tolerance X, --current-tolerance-single X (mom).
 *
 * FILES are a result's output files in the output template's order (what
 * script_validator passes): its table FILE as the apps write it, then the
 * kind's other files (mom: the currents' .npy; a kind's max_files, at most
 * one for the others); compare takes result 1's, then as many of result
 * 2's. Its kind is told from its content, by the registry (kinds.c): a
 * first line "# orrery-diffraction-results 1" is a diffraction results
 * table (workunits/diffraction/validate.c), "# orrery fdtd results 1" an
 * fdtd result (workunits/fdtd/validate.c), "# orrery mom results 1" a
 * mom result (workunits/mom/validate.c); anything else is judged as
 * separation's (workunits/separation/validate.c). Each of those files
 * states its kind's init and compare rules.
 *
 * canonical: init's rules, then, if valid, the file as one line of JSON
 * on stdout (its form: the comment opening canonical.c), the only way
 * orrery-assimilate reads a result: a result init accepts is assimilable,
 * one it refuses is refused there with the same message.
 *
 * Every message is one line on stderr: the name the program was run by
 * (orrery-validate-init, -compare, or orrery-validate), during a compare
 * "FILE1 against FILE2", then the file, line and reason; compare's name the
 * quantity, both values and the tolerance. script_validator runs the
 * scripts through system(), so the line lands in the daemon's log
 * (bin/start's <output>: log_HOST/script_validator.log); a valid result
 * writes nothing.
 *
 * script_validator (BOINC server 1.6.2) takes one-word script names only
 * (it leaves a space on each word of a longer one, so no keyword matches):
 *     script_validator --app separation --init_script orrery-validate-init
 *         --compare_script orrery-validate-compare
 * From PROJECT/tmp_HOST/ it runs ../bin/orrery-validate-init with a
 * result's output files, and ../bin/orrery-validate-compare with result
 * 1's files then result 2's (separation: one file per result). It passes
 * no options, so tolerances come from a configuration file:
 * orrery-validate.conf in the directory argv[0] names (the project's bin/),
 * if it exists (none for a program found on PATH), or --config FILE, which
 * must exist. Lines `key = value`, '#' starts a comment; keys
 * likelihood_tolerance, integral_tolerance (separation), r00_tolerance and
 * efficiency_tolerance (diffraction), echo_db_tolerance,
 * echo_sigma_tolerance, echo_db_tolerance_single,
 * echo_sigma_tolerance_single, current_tolerance and
 * current_tolerance_single (mom), each at most once, values finite and
 * >= 0. Command-line tolerances override the file's.
 *
 * Exit status (what script_validator reads): 0 valid / equal; 1 invalid /
 * different: the content is bad (empty, truncated, malformed, over 16 MB
 * (separation), 64 MB (diffraction) or 1 GiB (fdtd, mom), out of range,
 * out of tolerance; results of two kinds compared); 3 (BOINC's VAL_RESULT_TRANSIENT_ERROR)
 * could not judge: a file missing or unreadable, a bad configuration file
 * or command line, or (canonical) stdout that cannot be written.
 * script_validator retries the work unit later on 3, so a daemon's mistake
 * never invalidates volunteers' work. One line on stderr says why. */
#include "validate.h"

/* main alone here: the fuzz target (tests/fuzz/fuzz_validate.c) links the
 * rest with libFuzzer's own main. */
int main(int argc, char **argv)
{
    return vd_main(argc, argv);
}
