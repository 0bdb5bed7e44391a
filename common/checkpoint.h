/* Checkpoint files: versioned, CRC-checked, written atomically (temporary
 * file, fsync, rename). The payload is the kind's business; this module only
 * guarantees that what comes back is exactly what was written, by this app
 * version, for this work unit. A corrupt, truncated, foreign or old-format
 * file is refused with a one-line reason so the caller starts from zero. */
#ifndef ORRERY_CHECKPOINT_H
#define ORRERY_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "orrery.h"

#define ORR_CHECKPOINT_FORMAT 1
/* The largest payload read back (2^40 bytes): a header claiming more is
 * refused; the MoM kind's matrices make checkpoints of several GiB
 * (16 n^2 bytes: 1.6 GB at n = 10 000). cost.h's checkpoint_bytes. */
#define ORR_CHECKPOINT_MAX_PAYLOAD 1099511627776.0

/* The work-unit identity passed in is the kind's hash over its input
 * files' bytes, parameters and options (orr_hash64, io/io.h), so another
 * work unit's checkpoint in the same slot is never resumed. */

orr_status orr_checkpoint_write(const char *path, const char *kind, uint64_t workunit,
                                const void *payload, size_t size, orr_error *err);

/* ORR_OK: *payload (malloc'd, caller frees) holds *size bytes.
 * ORR_ERR_OPEN: there is no checkpoint (the normal first start).
 * ORR_ERR_CHECKPOINT: the file exists but cannot be used; err says why. */
orr_status orr_checkpoint_read(const char *path, const char *kind, uint64_t workunit,
                               void **payload, size_t *size, orr_error *err);

/* The bytes of the file that holds a payload of `payload` bytes: the
 * header and the CRC trailer besides (--check's checkpoint_bytes). */
double orr_checkpoint_file_bytes(double payload);

#endif
