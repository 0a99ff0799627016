"""What the tools read from ELF files, read here: binutils need not be
installed, and a file that is no ELF (a script, a missing file) reads as
None, which every caller takes as "cannot tell".

    read(path)                    an Image, or None
    Image.needed()                the DT_NEEDED names, as `readelf -d` lists them
    Image.dynamic_tags()          the tags of the dynamic section (DT_RPATH, ...)
    Image.symbols(table)          (name, defined) of SYMTAB or DYNSYM; None without it
    Image.relocated_symbols()     the dynamic symbols a relocation names (calls
                                  the dynamic linker binds, PLT and GOT)
    Image.writable_load_bytes()   the writable PT_LOAD segments, page-rounded

Only the headers and the tables named above are parsed; 32- and 64-bit,
either byte order.
"""
import struct
from pathlib import Path

SHT_SYMTAB, SHT_RELA, SHT_DYNAMIC, SHT_REL, SHT_DYNSYM = 2, 4, 6, 9, 11
DT_NULL, DT_NEEDED, DT_RPATH, DT_RUNPATH = 0, 1, 15, 29
PT_LOAD, PF_W = 1, 2
SHN_UNDEF = 0
PAGE = 4096

# Field layouts by class (32-bit, 64-bit). Section header: name, type, flags,
# addr, offset, size, link, info, addralign, entsize.
SECTION = ("IIIIIIIIII", "IIQQQQIIQQ")
# Program header: 32-bit type, offset, vaddr, paddr, filesz, memsz, flags,
# align; 64-bit type, flags, offset, vaddr, paddr, filesz, memsz, align.
SEGMENT = ("IIIIIIII", "IIQQQQQQ")
# Symbol: 32-bit name, value, size, info, other, shndx; 64-bit name, info,
# other, shndx, value, size.
SYMBOL = ("IIIBBH", "IBBHQQ")
DYNAMIC_ENTRY = ("iI", "qQ")
# Relocation: offset, info (REL), addend (RELA); the symbol is info >> 8 or >> 32.
RELOCATION = ({SHT_REL: "II", SHT_RELA: "IIi"}, {SHT_REL: "QQ", SHT_RELA: "QQq"})
SYMBOL_SHIFT = (8, 32)


class Image:
    """One ELF file's bytes and headers. Raises ValueError (or struct.error,
    IndexError) on a file that is not ELF or is cut short."""

    def __init__(self, data):
        if data[:4] != b"\x7fELF" or data[4] not in (1, 2) or data[5] not in (1, 2):
            raise ValueError("not an ELF file")
        self.data = data
        self.wide = int(data[4] == 2)
        self.order = "<" if data[5] == 1 else ">"
        phoff, shoff = self.unpack("QQ" if self.wide else "II", 0x20 if self.wide else 0x1C)
        phentsize, phnum, shentsize, shnum = self.unpack("HHHH", 0x36 if self.wide else 0x2A)
        self.sections = [self.unpack(SECTION[self.wide], shoff + i * shentsize) for i in range(shnum)]
        self.segments = [self.unpack(SEGMENT[self.wide], phoff + i * phentsize) for i in range(phnum)]

    def unpack(self, layout, offset):
        return struct.unpack_from(self.order + layout, self.data, offset)

    def entries(self, section, layout):
        """The fixed-size entries of a section (a table) in `layout`."""
        offset, size = section[4], section[5]
        step = struct.calcsize(self.order + layout)
        return [self.unpack(layout, at) for at in range(offset, offset + size - step + 1, step)]

    def string(self, table, index):
        start = self.sections[table][4] + index
        return self.data[start:self.data.index(b"\0", start)].decode(errors="replace")

    def of_kind(self, kind):
        return [(index, section) for index, section in enumerate(self.sections) if section[1] == kind]

    def dynamic(self):
        """(tag, value, string table) of every entry before DT_NULL."""
        found = []
        for _, section in self.of_kind(SHT_DYNAMIC):
            for tag, value in self.entries(section, DYNAMIC_ENTRY[self.wide]):
                if tag == DT_NULL:
                    break
                found.append((tag, value, section[6]))
        return found

    def dynamic_tags(self):
        return {tag for tag, _, _ in self.dynamic()}

    def needed(self):
        return [self.string(strings, value) for tag, value, strings in self.dynamic() if tag == DT_NEEDED]

    def symbol_table(self, index):
        """(name, defined) of each entry of the symbol table at `index`."""
        section = self.sections[index]
        shndx = 3 if self.wide else 5
        return [(self.string(section[6], symbol[0]), symbol[shndx] != SHN_UNDEF)
                for symbol in self.entries(section, SYMBOL[self.wide])]

    def symbols(self, kind):
        tables = self.of_kind(kind)
        if not tables:
            return None
        return [symbol for index, _ in tables for symbol in self.symbol_table(index)]

    def relocated_symbols(self):
        """The names of the dynamic symbols some relocation refers to."""
        names = set()
        for kind in (SHT_REL, SHT_RELA):
            for _, section in self.of_kind(kind):
                table = section[6]
                if not 0 < table < len(self.sections) or self.sections[table][1] != SHT_DYNSYM:
                    continue
                symbols = self.symbol_table(table)
                for relocation in self.entries(section, RELOCATION[self.wide][kind]):
                    index = relocation[1] >> SYMBOL_SHIFT[self.wide]
                    if 0 < index < len(symbols):
                        names.add(symbols[index][0])
        return names

    def writable_load_bytes(self):
        """The pages the writable loadable segments (data, bss) span."""
        total = 0
        for segment in self.segments:
            kind, flags, vaddr, memsz = ((segment[0], segment[6], segment[2], segment[5]) if not self.wide else
                                         (segment[0], segment[1], segment[3], segment[6]))
            if kind == PT_LOAD and flags & PF_W:
                spanned = vaddr % PAGE + memsz  # from its first page
                total += -(-spanned // PAGE) * PAGE
        return total


def read(path):
    """The Image of the file at `path`, or None when it is no (whole) ELF file."""
    try:
        return Image(Path(path).read_bytes())
    except (OSError, ValueError, struct.error, IndexError):
        return None


def guarded(path, question, unknown=None):
    """question(image) for the ELF file at `path`, or `unknown` when it is
    none or its tables do not hold together."""
    image = read(path)
    if image is None:
        return unknown
    try:
        return question(image)
    except (ValueError, struct.error, IndexError):
        return unknown
