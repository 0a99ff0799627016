"""cmake --install lays out what the README promises, and a program finds the
installed library with find_package(harmonize) and with pkg-config."""
import os
import subprocess

import pytest

from conftest import BUILD_DIR, PROGRAMS, clean_environment
from harmonize_tools import elf


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    prefix = tmp_path_factory.mktemp("prefix")
    subprocess.run(["cmake", "--install", BUILD_DIR, "--prefix", prefix], check=True,
                   capture_output=True)
    return prefix


def test_install_layout(prefix):
    libdirs = [d for d in ("lib", "lib64", "lib/x86_64-linux-gnu") if (prefix / d / "libharmonize.so").exists()]
    assert libdirs, list(prefix.rglob("libharmonize*"))
    lib = prefix / libdirs[0]
    assert (prefix / "include/harmonize/mpix_harmonize.h").exists()
    for tool in ("harmonize-run", "harmonize-ab", "harmonize-lab", "harmonize-tune", "harmonize-example",
                 "harmonize-clockcheck", "harmonize-config"):
        assert os.access(prefix / "bin" / tool, os.X_OK), tool
    assert (prefix / "share/harmonize/config/default.env").exists()
    assert (prefix / "share/harmonize/config/precise.env").exists()
    for script in ("harmonize-ab.sbatch", "harmonize-tune.sbatch"):
        assert os.access(prefix / "share/harmonize/examples/slurm" / script, os.X_OK)
    assert (lib / "cmake/harmonize/harmonizeConfig.cmake").exists()
    assert (lib / "pkgconfig/harmonize.pc").exists()
    # No RPATH/RUNPATH to a particular MPI: the launcher's libmpi is used.
    image = elf.read(lib / "libharmonize.so")
    assert not image.dynamic_tags() & {elf.DT_RPATH, elf.DT_RUNPATH}
    assert any("libmpi" in name for name in image.needed())  # so it loads into mpi4py's local-scope libmpi


def test_installed_launcher_finds_installed_library(prefix):
    result = subprocess.run([prefix / "bin/harmonize-run", "--dry-run", "--", "mpiexec", "-n", "2",
                             PROGRAMS / "barrier_loop"], capture_output=True, text=True,
                            env=clean_environment())
    assert result.returncode == 0, result.stderr
    assert str(prefix) in result.stdout and "libharmonize.so" in result.stdout


def test_installed_tools_import_the_installed_package(prefix):
    """The launchers in bin/ take harmonize_tools from share/harmonize/python
    (docs/python.md), not from the sources."""
    package = prefix / "share/harmonize/python/harmonize_tools"
    assert (package / "common.py").exists() and (package / "ab" / "cli.py").exists()
    for tool, words in (("harmonize-ab", "usage: harmonize-ab"), ("harmonize-lab", "harmonize-lab:"),
                        ("harmonize-tune", "usage: harmonize-tune")):
        result = subprocess.run([prefix / "bin" / tool, "--help"], capture_output=True, text=True,
                                env=clean_environment(PYTHONDONTWRITEBYTECODE="1"))
        assert result.returncode == 0 and words in result.stdout, result.stderr
    where = subprocess.run(["/usr/bin/python3", "-c", "import harmonize_tools; print(harmonize_tools.__file__)"],
                           capture_output=True, text=True, env=clean_environment(PYTHONPATH=package.parent))
    assert where.stdout.strip() == str(package / "__init__.py"), where.stderr


def test_find_package_consumer_builds(prefix, tmp_path):
    source = tmp_path / "consumer"
    source.mkdir()
    (source / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.20)\nproject(consumer C)\n"
        "find_package(MPI REQUIRED COMPONENTS C)\nfind_package(harmonize REQUIRED)\n"
        "add_executable(consumer main.c)\n"
        "target_link_libraries(consumer PRIVATE harmonize::harmonize MPI::MPI_C)\n")
    (source / "main.c").write_text(
        "#include <harmonize/mpix_harmonize.h>\n"
        "int main(int argc, char** argv) { MPI_Init(&argc, &argv); int flag = 0;\n"
        "  MPIX_Harmonize(MPI_COMM_WORLD, &flag); MPI_Finalize(); return flag == 1 ? 0 : 1; }\n")
    build = tmp_path / "build"
    subprocess.run(["cmake", "-S", source, "-B", build, f"-DCMAKE_PREFIX_PATH={prefix}"],
                   check=True, capture_output=True)
    subprocess.run(["cmake", "--build", build], check=True, capture_output=True)
    assert (build / "consumer").exists()
