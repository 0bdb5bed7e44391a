/* The sizes and device buffers of a diffraction batch on a GPU, apart
 * from device.h so that the kernels' C++ (nvcc) includes them without the
 * kind's C99 complex types. */
#ifndef ORRERY_DIFFRACTION_DEVICE_TYPES_H
#define ORRERY_DIFFRACTION_DEVICE_TYPES_H

#include "device/device.h"

/* Sizes every launch needs. */
typedef struct {
    int nz, n_modes, kx, ky, fft_x, fft_y, n_layers, mx, my;
    int capacity, n_vectors;
    long unknowns;   /* nz * n_modes */
    long grid;       /* fft_x * fft_y: one slice's padded grid */
} dif_dims;

/* The device buffers. Vectors are [n_vectors][capacity][unknowns];
 * grids are [active index][nz][grid] (the active points packed, so one
 * batched FFT covers them); spectra [capacity][nz][grid]; tables per batch
 * position: mt [capacity][n_modes][DIF_MODE_TABLE], lay
 * [capacity][n_modes][n_layers][DIF_LAYER_TABLE]; complex values as
 * (re, im) doubles. */
typedef struct {
    orr_dmem vec, grid, spectra, mt, lay;
    orr_dmem spectrum_of;   /* int [capacity] */
    orr_dmem layer_first;   /* int [n_layers + 1] */
    orr_dmem active;        /* int [capacity]: batch positions of the active points */
    orr_dmem coef;          /* complex [capacity][4] */
    orr_dmem dots;          /* complex [capacity][4] */
} dif_device_bufs;

/* The vectors a dots or lincomb works on, passed by value with the launch
 * (an upload would cost the host a wait each time). */
typedef struct {
    int v[8];
} dif_vidx;

#endif
