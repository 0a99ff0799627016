"""MPI.Wtime and MPI_WTIME_IS_GLOBAL as mpi4py sees them: rank 0 prints the
attribute and every rank's Wtime right after a barrier."""
from mpi4py import MPI

comm = MPI.COMM_WORLD
is_global = comm.Get_attr(MPI.WTIME_IS_GLOBAL)
comm.Barrier()
stamps = comm.gather(MPI.Wtime(), root=0)
if comm.rank == 0:
    print("mpi4py wtime_is_global", bool(is_global))
    print("mpi4py stamps", " ".join(f"{s:.9f}" for s in stamps))
