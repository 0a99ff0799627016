"""mpi4py program: barriers through Comm.Barrier and Comm.barrier."""
from mpi4py import MPI

comm = MPI.COMM_WORLD
for _ in range(6):
    comm.Barrier()
for _ in range(4):
    comm.barrier()
if comm.Get_rank() == 0:
    print("mpi4py done", flush=True)
