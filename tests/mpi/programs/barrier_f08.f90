! Fortran barrier through the mpi_f08 module, with and without ierror.
program barrier_f08
  use mpi_f08
  implicit none
  integer :: ierr, i, rank
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  do i = 1, 5
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    if (ierr /= MPI_SUCCESS) stop 1
    call MPI_Barrier(MPI_COMM_WORLD)
  end do
  if (rank == 0) print '(a)', 'fortran mpi_f08 done'
  call MPI_Finalize()
end program barrier_f08
