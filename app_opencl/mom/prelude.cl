/* The MoM program's first lines, before common/portable.h,
 * common/mom/bessel.h and common/mom/entries.h (embedded after this file,
 * their #include lines dropped) and kernels.cl: double precision for the
 * entries, and no contraction, so the fill's arithmetic is the C
 * reference's (built with -ffp-contract=off; bessel.h's header says what
 * the maths library still changes). */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF
