"""What the tools read from ELF files, read here: binutils need not be
installed, and a file that is no ELF (a script, a missing file) or whose
tables do not hold together reads as None, which every caller takes as
"cannot tell".

    read(path)                    an Image, or None
    guarded(path, question)       question(image), or a default for None
    Image.needed()                the DT_NEEDED names, as `readelf -d` lists them
    Image.dynamic_tags()          the tags of the dynamic section (DT_RPATH, ...)
    Image.binds_symbolically()    DT_SYMBOLIC, or DF_SYMBOLIC in DT_FLAGS
    Image.symbols(kind)           Symbols (name, defined, function) of SHT_SYMTAB or
                                  SHT_DYNSYM; None without
    Image.relocated_symbols()     the dynamic symbols a relocation names (the calls
                                  the dynamic linker binds: PLT and GOT)
    Image.writable_load_bytes()   the pages the writable PT_LOAD segments span

Only the headers and the tables named above are parsed; 32- and 64-bit,
either byte order (not MIPS64's split r_info).
"""
import struct
from collections import namedtuple
from pathlib import Path

SHT_SYMTAB, SHT_RELA, SHT_DYNAMIC, SHT_REL, SHT_DYNSYM = 2, 4, 6, 9, 11
DT_NULL, DT_NEEDED, DT_RPATH, DT_SYMBOLIC, DT_RUNPATH, DT_FLAGS = 0, 1, 15, 16, 29, 30
DF_SYMBOLIC = 0x2
PT_LOAD, PF_W = 1, 2
SHN_UNDEF = 0
PAGE = 4096

Section = namedtuple("Section", "name kind flags addr offset size link info addralign entsize")
Segment = namedtuple("Segment", "kind flags vaddr memsz")
Symbol = namedtuple("Symbol", "name defined function")

# Layouts by class (index 0: 32-bit, 1: 64-bit), in the gABI's field order.
SECTION = ("IIIIIIIIII", "IIQQQQIIQQ")
# 32-bit: type offset vaddr paddr filesz memsz flags align;
# 64-bit: type flags offset vaddr paddr filesz memsz align.
SEGMENT = ("IIIIIIII", "IIQQQQQQ")
SEGMENT_FIELDS = ((0, 6, 2, 5), (0, 1, 3, 6))  # kind, flags, vaddr, memsz
# 32-bit: name value size info other shndx; 64-bit: name info other shndx value size.
SYMBOL = ("IIIBBH", "IBBHQQ")
SYMBOL_INFO, SYMBOL_SHNDX = (3, 1), (5, 3)
STT_FUNC, STT_GNU_IFUNC = 2, 10
DYNAMIC_ENTRY = ("iI", "qQ")
# offset, info (and addend); the symbol's index is info >> 8 or >> 32.
RELOCATION = ({SHT_REL: "II", SHT_RELA: "IIi"}, {SHT_REL: "QQ", SHT_RELA: "QQq"})
SYMBOL_SHIFT = (8, 32)

# What a malformed file raises here: bad layout or magic (ValueError), a
# table beyond the end (struct.error, IndexError), an offset past 2^63
# (OverflowError).
MALFORMED = (ValueError, struct.error, IndexError, OverflowError)


class Image:
    """One ELF file's bytes and headers; raises one of MALFORMED on a file
    that is not ELF or does not hold together."""

    def __init__(self, data):
        if data[:4] != b"\x7fELF" or data[4] not in (1, 2) or data[5] not in (1, 2):
            raise ValueError("not an ELF file")
        self.data = data
        self.wide = int(data[4] == 2)
        self.order = "<" if data[5] == 1 else ">"
        phoff, shoff = self.unpack("QQ" if self.wide else "II", 0x20 if self.wide else 0x1C)
        phentsize, phnum, shentsize, shnum = self.unpack("HHHH", 0x36 if self.wide else 0x2A)
        # A header whose entries are not the gABI's size (0 would make one
        # entry count 65 535 times) is no file this reader understands.
        if (phnum and phentsize != self.size(SEGMENT)) or (shnum and shentsize != self.size(SECTION)):
            raise ValueError("header entries of an unexpected size")
        self.sections = [Section(*self.unpack(SECTION[self.wide], shoff + i * shentsize)) for i in range(shnum)]
        fields = SEGMENT_FIELDS[self.wide]
        self.segments = []
        for i in range(phnum):
            raw = self.unpack(SEGMENT[self.wide], phoff + i * phentsize)
            self.segments.append(Segment(*(raw[field] for field in fields)))
        self.symbol_tables = {}

    def size(self, layouts):
        return struct.calcsize(self.order + layouts[self.wide])

    def unpack(self, layout, offset):
        return struct.unpack_from(self.order + layout, self.data, offset)

    def entries(self, section, layout):
        """The fixed-size entries of a table section."""
        step = struct.calcsize(self.order + layout)
        if section.offset + section.size > len(self.data):
            raise ValueError("a table beyond the end of the file")
        return [self.unpack(layout, at) for at in range(section.offset, section.offset + section.size - step + 1, step)]

    def string(self, table, index):
        """The NUL-terminated name at `index` of string table `table`
        (decoded leniently: a name is only ever compared)."""
        start = self.sections[table].offset + index
        return self.data[start:self.data.index(b"\0", start)].decode(errors="replace")

    def of_kind(self, kind):
        """(index, section) of every section of `kind`."""
        return [(index, section) for index, section in enumerate(self.sections) if section.kind == kind]

    def dynamic(self):
        """(tag, value, string table) of every dynamic entry before DT_NULL."""
        found = []
        for _, section in self.of_kind(SHT_DYNAMIC):
            for tag, value in self.entries(section, DYNAMIC_ENTRY[self.wide]):
                if tag == DT_NULL:
                    break
                found.append((tag, value, section.link))
        return found

    def dynamic_tags(self):
        return {tag for tag, _, _ in self.dynamic()}

    def needed(self):
        return [self.string(strings, value) for tag, value, strings in self.dynamic() if tag == DT_NEEDED]

    def binds_symbolically(self):
        """Whether the dynamic linker binds the file's references to its own
        definitions first (-Wl,-Bsymbolic)."""
        return any(tag == DT_SYMBOLIC or (tag == DT_FLAGS and value & DF_SYMBOLIC)
                   for tag, value, _ in self.dynamic())

    def symbol_table(self, index):
        """The Symbols of the table at `index`, read once however many
        sections name the same bytes."""
        section = self.sections[index]
        key = (section.offset, section.size, section.link)
        if key not in self.symbol_tables:
            info, shndx = SYMBOL_INFO[self.wide], SYMBOL_SHNDX[self.wide]
            self.symbol_tables[key] = [
                Symbol(self.string(section.link, symbol[0]), symbol[shndx] != SHN_UNDEF,
                       symbol[info] & 0xF in (STT_FUNC, STT_GNU_IFUNC))
                for symbol in self.entries(section, SYMBOL[self.wide])]
        return self.symbol_tables[key]

    def symbols(self, kind):
        """The Symbols of every table of `kind`; None when
        the file has none (a stripped program has no SHT_SYMTAB)."""
        tables = {(section.offset, section.size, section.link): index for index, section in self.of_kind(kind)}
        if not tables:
            return None
        return [symbol for index in tables.values() for symbol in self.symbol_table(index)]

    def relocated_symbols(self):
        """The names of the dynamic symbols some relocation refers to."""
        names = set()
        for kind in (SHT_REL, SHT_RELA):
            for _, section in self.of_kind(kind):
                if not 0 < section.link < len(self.sections) or self.sections[section.link].kind != SHT_DYNSYM:
                    continue  # a relocatable object's, against .symtab
                symbols = self.symbol_table(section.link)
                for relocation in self.entries(section, RELOCATION[self.wide][kind]):
                    index = relocation[1] >> SYMBOL_SHIFT[self.wide]
                    if 0 < index < len(symbols):
                        names.add(symbols[index][0])
        return names

    def writable_load_bytes(self):
        """What the data and bss take once mapped: whole pages."""
        total = 0
        for segment in self.segments:
            if segment.kind == PT_LOAD and segment.flags & PF_W:
                spanned = segment.vaddr % PAGE + segment.memsz  # from its first page
                total += -(-spanned // PAGE) * PAGE
        return total


def read(path):
    """The Image of the file at `path`, or None when it is no (whole) ELF file."""
    try:
        return Image(Path(path).read_bytes())
    except (OSError, *MALFORMED):
        return None


def guarded(path, question, unknown=None):
    """question(image) for the ELF file at `path`, or `unknown` when it is
    none or the tables the question reads do not hold together."""
    image = read(path)
    if image is None:
        return unknown
    try:
        return question(image)
    except MALFORMED:
        return unknown
