! Fortran non-blocking collectives through the mpi_f08 module, with and
! without ierror: 50 iterations of a barrier, an iallreduce of 4 doubles
! completed by MPI_Wait, and an ibcast of 8 integers completed by an
! MPI_Test loop; then 50 ibarriers completed two at a time by MPI_Waitall.
program nonblocking_f08
  use mpi_f08
  implicit none
  integer :: ierr, i, rank
  logical :: done
  double precision :: a(4), b(4)
  integer :: c(8)
  type(MPI_Request) :: request, pair(2)
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  a = 1.0d0
  c = rank
  do i = 1, 50
    call MPI_Barrier(MPI_COMM_WORLD)
    call MPI_Iallreduce(a, b, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, request, ierr)
    if (ierr /= MPI_SUCCESS) stop 1
    call MPI_Wait(request, MPI_STATUS_IGNORE, ierr)
    if (b(1) < 1.5d0) stop 2
    call MPI_Ibcast(c, 8, MPI_INTEGER, 0, MPI_COMM_WORLD, request)
    done = .false.
    do while (.not. done)
      call MPI_Test(request, done, MPI_STATUS_IGNORE)
    end do
  end do
  do i = 1, 25
    call MPI_Ibarrier(MPI_COMM_WORLD, pair(1))
    call MPI_Ibarrier(MPI_COMM_WORLD, pair(2))
    call MPI_Waitall(2, pair, MPI_STATUSES_IGNORE)
  end do
  if (rank == 0) print '(a)', 'fortran mpi_f08 nonblocking done'
  call MPI_Finalize()
end program nonblocking_f08
