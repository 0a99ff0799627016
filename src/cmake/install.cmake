# Install: library, public header, tools, scripts, presets, CMake package
# config (find_package(harmonize)) and a pkg-config file.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS harmonize EXPORT harmonizeTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/harmonize DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(PROGRAMS ${PROJECT_SOURCE_DIR}/scripts/harmonize-run ${PROJECT_SOURCE_DIR}/scripts/harmonize-ab
  ${PROJECT_SOURCE_DIR}/scripts/harmonize-lab ${PROJECT_SOURCE_DIR}/scripts/harmonize-tune
  ${PROJECT_SOURCE_DIR}/scripts/harmonize-timeline
  DESTINATION ${CMAKE_INSTALL_BINDIR} OPTIONAL)
# The launchers find the package in ../share/harmonize/python (docs/python.md).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/harmonize_tools
  DESTINATION ${CMAKE_INSTALL_DATADIR}/harmonize/python FILES_MATCHING PATTERN "*.py" PATTERN "*.c"
  PATTERN "__pycache__" EXCLUDE)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/config/ DESTINATION ${CMAKE_INSTALL_DATADIR}/harmonize/config
  FILES_MATCHING PATTERN "*.env")
# Batch scripts for Slurm (docs/slurm.md); they find the tools on PATH.
install(PROGRAMS ${PROJECT_SOURCE_DIR}/examples/slurm/harmonize-ab.sbatch
  ${PROJECT_SOURCE_DIR}/examples/slurm/harmonize-tune.sbatch
  DESTINATION ${CMAKE_INSTALL_DATADIR}/harmonize/examples/slurm)

install(EXPORT harmonizeTargets NAMESPACE harmonize:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/harmonize)
configure_package_config_file(${PROJECT_SOURCE_DIR}/src/cmake/harmonizeConfig.cmake.in
  ${PROJECT_BINARY_DIR}/harmonizeConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/harmonize)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/harmonizeConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/harmonizeConfig.cmake ${PROJECT_BINARY_DIR}/harmonizeConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/harmonize)

configure_file(${PROJECT_SOURCE_DIR}/src/cmake/harmonize.pc.in ${PROJECT_BINARY_DIR}/harmonize.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/harmonize.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
