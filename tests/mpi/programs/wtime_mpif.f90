! MPI_WTIME and MPIX_HARMONIZE_GETTIME from mpif.h: the two clocks read back
! to back, as a Fortran program of HARMONIZE_WTIME=global sees them.
program wtime_mpif
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, status
  double precision :: wtime, t, bound
  external :: MPIX_HARMONIZE_GETTIME
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  wtime = MPI_WTIME()
  call MPIX_HARMONIZE_GETTIME(t, bound, status)
  if (rank == 0) print '(a, i0, 3(1x, es24.16))', 'fortran gettime ', status, wtime, t, bound
  call MPI_FINALIZE(ierr)
end program wtime_mpif
