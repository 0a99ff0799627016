# Shared by scripts/demo and scripts/test: make sure the Debian packages are
# there (installing them when run as root), then configure and build.
# Sourced, not executed. Honours BUILD_DIR (default: build) and CMAKE_ARGS.

HARMONIZE_PACKAGES=(
  build-essential cmake pkg-config gfortran
  libopenmpi-dev openmpi-bin mpich libmpich-dev
  libhwloc-dev catch2 nlohmann-json3-dev libsimgrid-dev iproute2 time
  libopen-trace-format2-dev otf2-tools
  slurmctld slurmd slurm-client munge
  python3 python3-pytest python3-mpi4py python3-matplotlib python3-numpy python3-flake8
)

harmonize_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$harmonize_root/build}"

missing_packages() {
  local missing=()
  for package in "${HARMONIZE_PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("$package")
  done
  echo "${missing[@]}"
}

ensure_packages() {
  local missing
  missing="$(missing_packages "$@")"
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" -eq 0 ]; then
    echo "==> installing Debian packages: $missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
      { echo "error: apt-get install failed for: $missing" >&2; return 1; }
  else
    echo "error: missing Debian packages. Install them with:" >&2
    echo "  sudo apt-get install -y $missing" >&2
    return 1
  fi
}

# Compiler wrappers and launcher of one MPI, for CMake. Open MPI is the
# default (what `mpicc` points to on Debian when both are installed).
mpi_cmake_args() {
  case "$1" in
    openmpi) echo "" ;;
    mpich) echo "-DMPI_C_COMPILER=mpicc.mpich -DMPI_CXX_COMPILER=mpicxx.mpich -DMPI_Fortran_COMPILER=mpif90.mpich -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich" ;;
    *) echo "error: unknown MPI '$1' (openmpi or mpich)" >&2; return 1 ;;
  esac
}

# build_harmonize [TARGET...]: all targets, or only those named (the demo
# needs the library and the example, not minutes of unit tests).
build_harmonize() {
  local targets=()
  [ "$#" -gt 0 ] && targets=(--target "$@")
  mkdir -p "$BUILD_DIR"
  echo "==> configuring in $BUILD_DIR"
  cmake -S "$harmonize_root" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo ${CMAKE_ARGS:-} >"$BUILD_DIR/harmonize-configure.log" 2>&1 ||
    { cat "$BUILD_DIR/harmonize-configure.log" >&2; return 1; }
  echo "==> building (log: $BUILD_DIR/harmonize-build.log)"
  cmake --build "$BUILD_DIR" -j "$(nproc)" "${targets[@]}" >"$BUILD_DIR/harmonize-build.log" 2>&1 ||
    { tail -n 60 "$BUILD_DIR/harmonize-build.log" >&2; return 1; }
}

# Open MPI refuses to run as root without this consent (containers, CI).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
