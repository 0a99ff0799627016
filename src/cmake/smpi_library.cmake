# The SMPI library (included from src/CMakeLists.txt when HARMONIZE_SMPI is on).
#
# Every layer gets HARMONIZE_SMPI defined: the few places that differ in
# simulation (time sources, the spin until a deadline) check it.
foreach(layer harmonize_config harmonize_report harmonize_clock harmonize_sync harmonize_sync_mpi
              harmonize_logic harmonize_arrival harmonize_arrival_mpi harmonize_interleave harmonize_interleave_mpi harmonize_trace harmonize_trace_mpi harmonize_collectives
              harmonize_collectives_mpi
              harmonize_protocol harmonize_core)
  target_compile_definitions(${layer} PUBLIC ${HARMONIZE_SMPI_DEFINITIONS})
endforeach()

# `harmonize`: the shim as a static archive over the layers, for programs
# built here (CMake links the layers after it).
add_library(harmonize STATIC ${shim_sources})
target_link_libraries(harmonize PUBLIC harmonize_core)
target_link_libraries(harmonize PRIVATE harmonize_warnings)
target_include_directories(harmonize PUBLIC ${PROJECT_SOURCE_DIR}/include)

# lib/libharmonize-smpi.a: shim and layers in one archive, for programs built
# elsewhere with smpicc (docs/scaling.md):
#   smpicc bench.c -Wl,--whole-archive libharmonize-smpi.a -Wl,--no-whole-archive -lstdc++
set(smpi_layers harmonize harmonize_core harmonize_protocol harmonize_collectives_mpi
                harmonize_collectives harmonize_trace_mpi harmonize_trace harmonize_arrival_mpi harmonize_arrival harmonize_interleave_mpi harmonize_interleave harmonize_logic
                harmonize_sync_mpi
                harmonize_sync harmonize_clock harmonize_report harmonize_config)
set(mri ${CMAKE_CURRENT_BINARY_DIR}/harmonize-smpi.mri)
set(mri_text "CREATE ${CMAKE_ARCHIVE_OUTPUT_DIRECTORY}/libharmonize-smpi.a\n")
foreach(layer IN LISTS smpi_layers)
  string(APPEND mri_text "ADDLIB $<TARGET_FILE:${layer}>\n")
endforeach()
string(APPEND mri_text "SAVE\nEND\n")
file(GENERATE OUTPUT ${mri} CONTENT "${mri_text}")
add_custom_command(OUTPUT ${CMAKE_ARCHIVE_OUTPUT_DIRECTORY}/libharmonize-smpi.a
  COMMAND ${CMAKE_COMMAND} -E rm -f ${CMAKE_ARCHIVE_OUTPUT_DIRECTORY}/libharmonize-smpi.a
  COMMAND ${CMAKE_AR} -M < ${mri}
  DEPENDS ${smpi_layers} ${mri}
  COMMENT "Merging the layers into libharmonize-smpi.a")
add_custom_target(harmonize_smpi_archive ALL DEPENDS ${CMAKE_ARCHIVE_OUTPUT_DIRECTORY}/libharmonize-smpi.a)
