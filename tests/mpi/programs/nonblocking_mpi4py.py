"""Non-blocking collectives from mpi4py after each harmonized barrier. Each
rank reads the barrier's flag (MPIX_Harmonize_last_flag, through ctypes,
from the preloaded library); rank 0 prints how many barriers every rank left
in time, the calls whose Iallreduce the library must call valid."""
import ctypes
import sys

import numpy
from mpi4py import MPI

comm = MPI.COMM_WORLD
calls = int(sys.argv[1])
last_flag = ctypes.CDLL(None).MPIX_Harmonize_last_flag
# MPI_Comm is a pointer in Open MPI, an int in MPICH.
handle_type = ctypes.c_void_p if MPI._sizeof(MPI.Comm) == ctypes.sizeof(ctypes.c_void_p) else \
    ctypes.c_int
handle = handle_type(MPI._handleof(comm))
flag = ctypes.c_int()
a = numpy.ones(16, dtype='d')
b = numpy.empty_like(a)
flags = []
for i in range(calls):
    comm.Barrier()
    if last_flag(handle, ctypes.byref(flag)) != MPI.SUCCESS:
        raise SystemExit("MPIX_Harmonize_last_flag failed")
    flags.append(flag.value)
    comm.Iallreduce(a, b).Wait()
    request = comm.Ibarrier()
    while not request.Test():
        pass
everyone = comm.gather(flags, root=0)
if comm.rank == 0:
    print("in_time", sum(all(column) for column in zip(*everyone)))
