"""CRC-16/X-25 checksums of packets (npbench's crc16, one packet per row in a prange): bits
shifted out of a uint8 with >>=, XOR with the polynomial, ~ and masks with hex literals."""
import numpy as np

import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[uint8, 2]', 'int64', 'ndarray[int64, 1]')
def crc16_packets(packets, poly=0x8408):
    n = packets.shape[0]
    out = np.empty(n, dtype=np.int64)
    for i in prange(n):
        crc = 0xFFFF
        for b in packets[i]:
            cur_byte = 0xFF & b
            for _ in range(0, 8):
                if (crc & 0x0001) ^ (cur_byte & 0x0001):
                    crc = (crc >> 1) ^ poly
                else:
                    crc >>= 1
                cur_byte >>= 1
        crc = (~crc & 0xFFFF)
        crc = (crc << 8) | ((crc >> 8) & 0xFF)
        out[i] = crc & 0xFFFF
    return out


def inputs(rng, scale=1):
    return rng.integers(0, 256, (16 * scale, 48), dtype=np.uint8), 0x8408


LARGE = 400
FUNCTION = "crc16_packets"
