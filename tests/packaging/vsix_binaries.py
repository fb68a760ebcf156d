"""What machine a native module was built for, read from its own header (ELF, Mach-O, PE).

A file name such as `native.cpython-312-darwin.so` names the Python version but not always the
architecture, and a wrong wheel would still carry a plausible name; the header cannot lie.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

_ELF_MACHINES = {0x3E: "x86_64", 0xB7: "aarch64"}
_MACHO_CPUS = {0x01000007: "x86_64", 0x0100000C: "aarch64"}
_PE_MACHINES = {0x8664: "x86_64", 0xAA64: "aarch64"}
_MACHO_64_LE = b"\xcf\xfa\xed\xfe"
_MACHO_FAT = b"\xca\xfe\xba\xbe"


@dataclass(frozen=True)
class Binary:
    """The operating system, CPU architectures and (on Linux) C library a binary needs."""

    os: str
    arches: frozenset[str]
    libc: str | None = None


def describe(data: bytes) -> Binary:
    """Read the header of a shared library; ValueError for anything that is not one."""
    if data[:4] == b"\x7fELF":
        return _elf(data)
    if data[:4] == _MACHO_64_LE:
        (cpu,) = struct.unpack_from("<I", data, 4)
        return Binary("darwin", frozenset({_MACHO_CPUS.get(cpu, hex(cpu))}))
    if data[:4] == _MACHO_FAT:
        return _fat_macho(data)
    if data[:2] == b"MZ":
        return _pe(data)
    raise ValueError(f"not a shared library (starts with {data[:4]!r})")


def _elf(data: bytes) -> Binary:
    if data[4] != 2 or data[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    (machine,) = struct.unpack_from("<H", data, 18)
    # The dynamic string table names the C library the module links against; musl's loader
    # is libc.musl-<arch>.so.1, glibc's is libc.so.6.
    if b"libc.musl-" in data:
        libc = "musl"
    elif b"libc.so.6" in data:
        libc = "glibc"
    else:
        libc = "unknown"
    return Binary("linux", frozenset({_ELF_MACHINES.get(machine, hex(machine))}), libc)


def _fat_macho(data: bytes) -> Binary:
    (count,) = struct.unpack_from(">I", data, 4)
    cpus = [struct.unpack_from(">I", data, 8 + 20 * i)[0] for i in range(count)]
    return Binary("darwin", frozenset(_MACHO_CPUS.get(cpu, hex(cpu)) for cpu in cpus))


def _pe(data: bytes) -> Binary:
    (offset,) = struct.unpack_from("<I", data, 0x3C)
    if data[offset : offset + 4] != b"PE\0\0":
        raise ValueError("MZ file without a PE header")
    (machine,) = struct.unpack_from("<H", data, offset + 4)
    return Binary("win32", frozenset({_PE_MACHINES.get(machine, hex(machine))}))
