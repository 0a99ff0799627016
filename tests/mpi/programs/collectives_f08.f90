! Fortran collectives through the mpi_f08 module, with and without ierror:
! 50 iterations of a barrier, an allreduce of 4 doubles and a broadcast of 8
! integers, one of them in place.
program collectives_f08
  use mpi_f08
  implicit none
  integer :: ierr, i, rank
  double precision :: a(4), b(4)
  integer :: c(8)
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  a = 1.0d0
  c = rank
  do i = 1, 50
    call MPI_Barrier(MPI_COMM_WORLD)
    call MPI_Allreduce(a, b, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (ierr /= MPI_SUCCESS) stop 1
    call MPI_Bcast(c, 8, MPI_INTEGER, 0, MPI_COMM_WORLD)
  end do
  call MPI_Allreduce(MPI_IN_PLACE, a, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  if (a(1) < 1.5d0) stop 3
  if (rank == 0) print '(a)', 'fortran mpi_f08 collectives done'
  call MPI_Finalize()
end program collectives_f08
