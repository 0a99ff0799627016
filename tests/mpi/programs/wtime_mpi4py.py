"""MPI.Wtime and MPI_WTIME_IS_GLOBAL as mpi4py sees them: rank 0 prints the
attribute, and MPIX_Harmonize_gettime (through ctypes, from the preloaded
library) read between two MPI.Wtime calls."""
import ctypes

from mpi4py import MPI

comm = MPI.COMM_WORLD
is_global = comm.Get_attr(MPI.WTIME_IS_GLOBAL)
comm.Barrier()
gettime = ctypes.CDLL(None).MPIX_Harmonize_gettime
t, bound = ctypes.c_double(), ctypes.c_double()
before = MPI.Wtime()
status = gettime(ctypes.byref(t), ctypes.byref(bound))
after = MPI.Wtime()
if comm.rank == 0:
    print("mpi4py wtime_is_global", bool(is_global))
    print(f"mpi4py sandwich {before:.9f} {t.value:.9f} {after:.9f} {status}")
