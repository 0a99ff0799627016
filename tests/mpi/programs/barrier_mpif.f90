! Fortran barrier through mpif.h (the legacy binding).
program barrier_mpif
  implicit none
  include 'mpif.h'
  integer :: ierr, i, rank
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  do i = 1, 10
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
    if (ierr /= MPI_SUCCESS) stop 1
  end do
  if (rank == 0) print '(a)', 'fortran mpif.h done'
  call MPI_FINALIZE(ierr)
end program barrier_mpif
