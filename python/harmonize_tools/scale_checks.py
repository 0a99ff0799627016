"""harmonize-scale's checks before a simulation: what the host must hold for
P simulated ranks (memory maps, open files, shared memory; each said before
the run, not met in its middle), and a program that binds its own MPI_*
calls (what SMPI's privatization needs)."""
import os
import resource
from pathlib import Path

from . import elf


# What each simulated rank costs the host, per privatization (measured):
# memory maps, and files kept open. dlopen loads a copy of the program per
# rank (~10 maps); mmap keeps one shared-memory file per rank, mapped (12 461
# maps and 4 099 open files at 4 096 ranks, stacks included). Past the
# kernel's vm.max_map_count (65 530 by default) or the open-file limit the
# rank that crosses it fails to load (16 384 ranks under dlopen aborted at
# rank 6 518 after 40 s): said before the run instead.
MAPS_PER_RANK = {"dlopen": 12, "mmap": 3, "no": 2}
MAPS_BESIDE = 1000
FILES_PER_RANK = {"dlopen": 0, "mmap": 1, "no": 0}
FILES_BESIDE = 64  # the simulator's own: logs, the platform, the libraries


def privatization(cfg):
    """How SMPI privatizes the ranks' globals under these --cfg settings
    (the last one wins): 'mmap', 'dlopen' or 'no'."""
    value = "dlopen"  # SimGrid's default
    for setting in cfg:
        key, _, given = setting.partition(":")
        if key == "smpi/privatization":
            value = {"yes": "dlopen", "1": "dlopen", "0": "no"}.get(given, given)
    return value


def map_count_limit(path="/proc/sys/vm/max_map_count"):
    try:
        return int(Path(path).read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def check_map_count(procs, limit, how="dlopen"):
    """None, or why `procs` simulated ranks cannot load under `limit` maps."""
    needed = procs * MAPS_PER_RANK.get(how, MAPS_PER_RANK["dlopen"]) + MAPS_BESIDE
    if limit is None or needed <= limit:
        return None
    return (f"{procs} simulated ranks need about {needed} memory maps (smpi/privatization:{how}) but "
            f"vm.max_map_count is {limit}: raise it, e.g. "
            f"sysctl -w vm.max_map_count={1 << (needed - 1).bit_length()}")


def open_files_needed(procs, how):
    return procs * FILES_PER_RANK.get(how, 0) + FILES_BESIDE


def raise_open_files(needed):
    """None once the open-file limit allows `needed` files (the soft limit is
    raised up to the hard one), or why it cannot."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= needed:
        return None
    if hard != resource.RLIM_INFINITY and hard < needed:
        return (f"the simulation needs about {needed} open files (one per simulated rank under "
                f"smpi/privatization:mmap) but the hard limit is {hard}: raise it (ulimit -Hn, as root), "
                f"or give --cfg smpi/privatization:dlopen (more memory per rank)")
    resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))
    return None


def writable_segment_bytes(program):
    """The program's writable segments (data and bss), page-rounded; None
    when unknown (no ELF file)."""
    return elf.guarded(program, elf.Image.writable_load_bytes) or None


def check_shared_memory(procs, how, program, path="/dev/shm"):
    """None, or why `procs` copies of the program's data segment will not fit
    in `path`: under mmap privatization SimGrid keeps each rank's in a file
    there (a container's default /dev/shm is 64 MB)."""
    if how != "mmap":
        return None
    per_rank = writable_segment_bytes(program)
    if per_rank is None:
        return None
    try:
        stat = os.statvfs(path)
    except OSError:
        return None
    needed = procs * per_rank
    free = stat.f_bavail * stat.f_frsize
    if needed <= free:
        return None
    return (f"{procs} simulated ranks need about {needed >> 20} MB in {path} (a copy of the program's "
            f"{per_rank >> 10} KB data segment each, smpi/privatization:mmap) but {free >> 20} MB are free: "
            f"enlarge it (mount -o remount,size=... {path}; docker run --shm-size), or give "
            "--cfg smpi/privatization:dlopen")


def is_mpi_name(name):
    """MPI_Barrier, and the Fortran bindings' MPI_BARRIER, mpi_barrier_ ..."""
    return name[:4].lower() == "mpi_"


def check_program_binding(program, how):
    """None, or why `program`'s MPI calls would not reach the library linked
    into it (docs/scaling.md, Build).

    SMPI cannot preload: the program holds the library, so it defines the
    MPI_* the library intercepts. Under smpi/privatization:mmap (and 'no')
    SMPI loads the program once, after SimGrid's own MPI_* in the global
    scope: a call of one of them that the dynamic linker binds (a relocation
    names it) reaches SimGrid's instead, and the run ends with no report.
    -Wl,-Bsymbolic or -Wl,-Bsymbolic-functions bind them in the program;
    dlopen (RTLD_DEEPBIND) does not care. A program without the library
    never reaches it, whatever the privatization: MPI_Init, which the library
    defines, is then an undefined dynamic symbol, or (when the dynamic table
    cannot say) the program's own symbol table holds no MPI_* definition.
    What cannot be told (no ELF file; a stripped program whose dynamic
    symbols do not say) passes: a run that leaves no report is a failure in
    the table. The program's own shared libraries are not read."""
    def problem(image):
        dynamic = image.symbols(elf.SHT_DYNSYM) or []
        # Functions only: a call is what the dynamic linker may send elsewhere.
        exported = {s.name for s in dynamic if s.defined and s.function and is_mpi_name(s.name)}
        calls_missing_init = any(s.name in ("MPI_Init", "MPI_Init_thread") and not s.defined for s in dynamic)
        own = image.symbols(elf.SHT_SYMTAB)
        defines_none = (not exported and own is not None
                        and not any(s.defined and s.function and is_mpi_name(s.name) for s in own))
        if calls_missing_init or defines_none:
            return (f"{program} does not contain the library (it leaves MPI_Init to SimGrid or defines no MPI_* "
                    "of its own): its MPI calls would reach SimGrid's and the run would end with no report; link "
                    "it with -Wl,--whole-archive <SMPI build>/lib/libharmonize-smpi.a -Wl,--no-whole-archive "
                    "-lstdc++ -Wl,-Bsymbolic (docs/scaling.md, Build)")
        if how not in ("mmap", "no") or image.binds_symbolically():
            return None
        bypassed = sorted(exported & image.relocated_symbols())
        if not bypassed:
            return None
        named = ", ".join(bypassed[:3]) + (f" and {len(bypassed) - 3} more" if len(bypassed) > 3 else "")
        return (f"{program} calls its own {named} through the dynamic linker (not linked -Wl,-Bsymbolic): "
                f"under smpi/privatization:{how} those calls would reach SimGrid's, not the library's "
                "(docs/scaling.md); relink it with -Wl,-Bsymbolic, or give --cfg smpi/privatization:dlopen")
    return elf.guarded(program, problem)
