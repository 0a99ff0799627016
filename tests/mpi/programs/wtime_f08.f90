! MPI_Wtime through the mpi_f08 module beside MPIX_HARMONIZE_GETTIME.
program wtime_f08
  use mpi_f08
  implicit none
  integer :: rank, status
  double precision :: wtime, t, bound
  external :: MPIX_HARMONIZE_GETTIME
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Barrier(MPI_COMM_WORLD)
  wtime = MPI_Wtime()
  call MPIX_HARMONIZE_GETTIME(t, bound, status)
  if (rank == 0) print '(a, i0, 3(1x, es24.16))', 'fortran gettime ', status, wtime, t, bound
  call MPI_Finalize()
end program wtime_f08
