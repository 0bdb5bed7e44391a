#!/usr/bin/env python3
"""Rewrite fields of a separation checkpoint and recompute its CRC, as an
attacker (or a bit flip before the CRC was taken) could: the app must check
every field of a loaded checkpoint against its work unit, not trust the CRC.

    forge_checkpoint.py FILE NAME=VALUE...

NAME: member, area, printed, members (the payload's int32 header), next<A>
(area A's next chunk), bg<A> (area A's background Kahan sum), done<M>_n
(bundle member M's stream count) or done<M>_bg (its background integral).
Offsets are those of sep_run_state (common/separation/separation.h) on an
LP64 machine (x86-64, aarch64); the checkpoint header is common/checkpoint.c's.
"""
import struct
import sys
import zlib

HEADER = 8 + 4 + 16 + 16 + 8 + 8   # magic, format, app version, kind, identity, size
AREA_SUMS = 152                     # int32 next_chunk, pad, 9 Kahan pairs
SUMS, DONE, RESULT = 16, 2448, 160  # offsets in the payload; sizeof(sep_result)


def field(name):
    """(payload offset, struct format) of a field name."""
    fixed = {"member": 0, "area": 4, "printed": 8, "members": 12}
    if name in fixed:
        return fixed[name], "<i"
    if name.startswith("next"):
        return SUMS + int(name[4:]) * AREA_SUMS, "<i"
    if name.startswith("bg"):
        return SUMS + int(name[2:]) * AREA_SUMS + 8, "<d"
    if name.startswith("done"):
        member, what = name[4:].split("_")
        base = DONE + int(member) * RESULT
        return (base + RESULT - 8, "<i") if what == "n" else (base, "<d")
    sys.exit("forge_checkpoint.py: unknown field " + name)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    path = sys.argv[1]
    data = bytearray(open(path, "rb").read())
    payload_size = struct.unpack_from("<Q", data, HEADER - 8)[0]
    if len(data) != HEADER + payload_size + 4:
        sys.exit("forge_checkpoint.py: %s is not a whole checkpoint" % path)
    for arg in sys.argv[2:]:
        name, value = arg.split("=", 1)
        offset, fmt = field(name)
        number = float(value) if fmt == "<d" else int(value)
        struct.pack_into(fmt, data, HEADER + offset, number)
    crc = zlib.crc32(bytes(data[:HEADER + payload_size])) & 0xFFFFFFFF
    struct.pack_into("<I", data, HEADER + payload_size, crc)
    open(path, "wb").write(data)


if __name__ == "__main__":
    main()
