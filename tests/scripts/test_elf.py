"""harmonize_tools.elf: the ELF reader the tools use instead of binutils.

Exact on hand-made files of every class and byte order, and the same as
`readelf` on real binaries of this machine (when binutils are installed).
"""
import shutil
import struct
import subprocess

import pytest

from conftest import BUILD_DIR
from harmonize_tools import elf

STRINGS = b"\0libmpi.so.40\0libm.so.6\0MPI_Barrier\0MPI_Comm_rank\0MPI_Init\0"


def name_at(text):
    return STRINGS.index(text.encode() + b"\0")


def hand_made(wide, order, dynamic_flags=elf.DF_SYMBOLIC):
    """An ELF image with two DT_NEEDED, a DT_RUNPATH and DT_FLAGS before
    DT_NULL (and a DT_NEEDED after it, to be ignored), dynamic symbols
    MPI_Barrier (a defined function), MPI_Comm_rank (an undefined one) and
    MPI_Init (defined data), RELA entries naming the first two and one no
    symbol, a REL entry naming MPI_Init, and three loadable segments:
    read-only, writable across a page (8 KB), writable within one page but
    straddling its end (8 KB). Physical addresses are 0 and file sizes half
    the memory sizes, so that a reader taking one for the other counts
    12 KB."""
    word = "Q" if wide else "I"
    pack = (lambda layout, *values: struct.pack(order + layout, *values))
    dynamic = b"".join(pack("qQ" if wide else "iI", tag, value) for tag, value in (
        (elf.DT_NEEDED, name_at("libmpi.so.40")), (elf.DT_NEEDED, name_at("libm.so.6")),
        (elf.DT_RUNPATH, 0), (elf.DT_FLAGS, dynamic_flags), (elf.DT_NULL, 0),
        (elf.DT_NEEDED, name_at("MPI_Init"))))

    def symbol(name, info, shndx):  # info: binding << 4 | type (0x12 a global function, 0x11 data)
        return (pack("IBBHQQ", name, info, 0, shndx, 0x1234, 16) if wide else
                pack("IIIBBH", name, 0x1234, 16, info, 0, shndx))
    symbols = (symbol(0, 0, 0) + symbol(name_at("MPI_Barrier"), 0x12, 7) + symbol(name_at("MPI_Comm_rank"), 0x12, 0)
               + symbol(name_at("MPI_Init"), 0x11, 7))
    shift = 32 if wide else 8
    rela = b"".join(pack(word + word + ("q" if wide else "i"), 0, index << shift | 7, 0) for index in (1, 2, 0))
    rel = pack(word + word, 0, 3 << shift | 7)
    segments = [(elf.PT_LOAD, 4, 0, 0x1000), (elf.PT_LOAD, 6, 0x2010, 0x1FF0), (elf.PT_LOAD, 6, 0x5FF0, 0x20)]
    header_size, segment_size, section_size = (64, 56, 64) if wide else (52, 32, 40)
    tables = [(3, STRINGS, 0), (11, symbols, 1), (6, dynamic, 1), (4, rela, 2), (9, rel, 2)]
    offset = header_size + segment_size * len(segments)
    body, placed = b"", []
    for kind, data, link in tables:
        placed.append((kind, offset + len(body), len(data), link))
        body += data
    section_offset = offset + len(body)
    header = (b"\x7fELF" + bytes([2 if wide else 1, 1 if order == "<" else 2, 1]) + bytes(9)
              + pack("HHI", 3, 62, 1) + pack(word * 3, 0, header_size, section_offset)
              + pack("IHHHHHH", 0, header_size, segment_size, len(segments), section_size, 1 + len(tables), 0))
    program_headers = b"".join(
        pack("IIQQQQQQ", kind, flags, 0, vaddr, 0, memsz // 2, memsz, 4096) if wide else
        pack("IIIIIIII", kind, 0, vaddr, 0, memsz // 2, memsz, flags, 4096)
        for kind, flags, vaddr, memsz in segments)
    section_headers = bytes(section_size) + b"".join(
        pack("IIQQQQIIQQ" if wide else "IIIIIIIIII", 0, kind, 2, 0x40000, at, size, link, 1, 8, 24)
        for kind, at, size, link in placed)
    return header + program_headers + body + section_headers


@pytest.mark.parametrize("wide", [0, 1], ids=["32-bit", "64-bit"])
@pytest.mark.parametrize("order", ["<", ">"], ids=["little", "big"])
def test_every_class_and_byte_order_reads_the_same(tmp_path, wide, order):
    path = tmp_path / "image"
    path.write_bytes(hand_made(wide, order))
    image = elf.read(path)
    assert image.needed() == ["libmpi.so.40", "libm.so.6"]
    assert image.dynamic_tags() == {elf.DT_NEEDED, elf.DT_RUNPATH, elf.DT_FLAGS}
    assert image.binds_symbolically()
    assert image.symbols(elf.SHT_DYNSYM) == [("", False, False), ("MPI_Barrier", True, True),
                                             ("MPI_Comm_rank", False, True), ("MPI_Init", True, False)]
    assert image.symbols(elf.SHT_SYMTAB) is None
    assert image.relocated_symbols() == {"MPI_Barrier", "MPI_Comm_rank", "MPI_Init"}
    assert image.writable_load_bytes() == 16384
    path.write_bytes(hand_made(wide, order, dynamic_flags=0x8))  # DF_BIND_NOW alone
    assert not elf.read(path).binds_symbolically()


def test_what_is_no_elf_file_cannot_be_told(tmp_path):
    script = tmp_path / "script"
    script.write_text("#!/bin/sh\nexit 0\n")
    cut = tmp_path / "cut"
    cut.write_bytes(hand_made(1, "<")[:100])  # the header promises tables beyond the end
    for path in (script, cut, tmp_path / "missing", tmp_path):
        assert elf.read(path) is None, path
        assert elf.guarded(path, elf.Image.needed, []) == []
    torn = bytearray(hand_made(1, "<"))
    torn[-40:-32] = struct.pack("<Q", 1 << 40)  # the REL section's offset, far beyond the end
    (tmp_path / "torn").write_bytes(torn)
    assert elf.read(tmp_path / "torn") is not None
    assert elf.guarded(tmp_path / "torn", elf.Image.relocated_symbols) is None
    beyond = bytearray(hand_made(1, "<"))
    beyond[0x28:0x30] = struct.pack("<Q", 1 << 63)  # e_shoff past what an offset can be
    zero = bytearray(hand_made(1, "<"))
    zero[0x3A:0x3C] = bytes(2)  # e_shentsize 0: every section header the same one
    for name, data in (("beyond", beyond), ("zero", zero)):
        (tmp_path / name).write_bytes(data)
        assert elf.read(tmp_path / name) is None, name


def readelf(*arguments):
    return subprocess.run(["readelf", "-W", *arguments], capture_output=True, text=True, check=True).stdout


@pytest.mark.skipif(shutil.which("readelf") is None, reason="readelf (binutils) is not installed")
@pytest.mark.parametrize("binary", ["lib/libharmonize.so", "bin/harmonize-bench-barrier", "/bin/sh"])
def test_real_binaries_read_as_readelf_reads_them(binary):
    path = BUILD_DIR / binary
    image = elf.read(path)
    dynamic = readelf("-d", path)
    assert image.needed() == [line.split("[")[1].rstrip("]") for line in dynamic.splitlines() if "(NEEDED)" in line]
    relocated = set()
    for line in readelf("-r", path).splitlines():
        words = line.split()
        if len(words) >= 5 and words[2].startswith("R_"):
            relocated.add(words[4].split("@")[0])
    assert image.relocated_symbols() == relocated
    assert relocated, "a dynamically linked binary binds something"
    defined = set()
    for line in readelf("--dyn-syms", path).splitlines():
        words = line.split()
        # Num: Value Size Type Bind Vis Ndx Name [(version)]
        if len(words) >= 8 and words[0][:-1].isdigit() and words[6] != "UND":
            defined.add(words[7].split("@")[0])
    assert {symbol.name for symbol in image.symbols(elf.SHT_DYNSYM) if symbol.defined} == defined
    assert image.binds_symbolically() == ("SYMBOLIC" in dynamic)
    writable = 0
    for line in readelf("-l", path).splitlines():
        words = line.split()
        if len(words) >= 8 and words[0] == "LOAD" and "W" in words[6]:
            writable += -(-(int(words[2], 16) % 4096 + int(words[5], 16)) // 4096) * 4096
    assert image.writable_load_bytes() == writable > 0
