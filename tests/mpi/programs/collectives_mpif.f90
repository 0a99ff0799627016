! Fortran collectives through mpif.h (the legacy binding): 50 iterations of
! a barrier, an allreduce of 4 doubles and a broadcast of 8 integers, one of
! them in place.
program collectives_mpif
  implicit none
  include 'mpif.h'
  integer :: ierr, i, rank
  double precision :: a(4), b(4)
  integer :: c(8)
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  a = 1.0d0
  c = rank
  do i = 1, 50
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
    call MPI_ALLREDUCE(a, b, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (ierr /= MPI_SUCCESS) stop 1
    call MPI_BCAST(c, 8, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    if (ierr /= MPI_SUCCESS) stop 2
  end do
  call MPI_ALLREDUCE(MPI_IN_PLACE, a, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (a(1) < 1.5d0) stop 3
  if (rank == 0) print '(a)', 'fortran mpif.h collectives done'
  call MPI_FINALIZE(ierr)
end program collectives_mpif
