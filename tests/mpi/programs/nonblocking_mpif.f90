! Fortran non-blocking collectives through mpif.h: 50 iterations of a
! barrier, an iallreduce of 4 doubles completed by MPI_WAIT, and an ibcast
! of 8 integers completed by an MPI_TEST loop; then 50 ibarriers completed
! two at a time by MPI_WAITALL.
program nonblocking_mpif
  implicit none
  include 'mpif.h'
  integer :: ierr, i, rank, request, pair(2)
  integer :: status(MPI_STATUS_SIZE)
  logical :: done
  double precision :: a(4), b(4)
  integer :: c(8)
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  a = 1.0d0
  c = rank
  do i = 1, 50
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
    call MPI_IALLREDUCE(a, b, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, request, ierr)
    if (ierr /= MPI_SUCCESS) stop 1
    call MPI_WAIT(request, status, ierr)
    if (b(1) < 1.5d0) stop 2
    call MPI_IBCAST(c, 8, MPI_INTEGER, 0, MPI_COMM_WORLD, request, ierr)
    done = .false.
    do while (.not. done)
      call MPI_TEST(request, done, status, ierr)
    end do
  end do
  do i = 1, 25
    call MPI_IBARRIER(MPI_COMM_WORLD, pair(1), ierr)
    call MPI_IBARRIER(MPI_COMM_WORLD, pair(2), ierr)
    call MPI_WAITALL(2, pair, MPI_STATUSES_IGNORE, ierr)
  end do
  if (rank == 0) print '(a)', 'fortran mpif.h nonblocking done'
  call MPI_FINALIZE(ierr)
end program nonblocking_mpif
