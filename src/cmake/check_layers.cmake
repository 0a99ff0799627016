# Fails the build when a layer includes a header of a layer above it
# (docs/session.md, "Layers, enforced by the build": shim -> harmonize ->
# sync -> clock; config and report are leaves; the tools sit beside the shim). Run by the harmonize_layering target, which every layer depends on.
#   cmake -DSOURCE_DIR=<repo>/src -P check_layers.cmake
#
# <folder>: the folders whose headers its files may include. common/ (std-only
# headers shared by the leaves) may be included by every layer.
set(allowed_clock "clock")
set(allowed_config "config")
set(allowed_report "report")
set(allowed_sync "sync;clock")
set(allowed_sync/mpi "sync/mpi;sync;clock")
set(allowed_harmonize/logic "harmonize/logic;report")
# Rooms: one feature each (docs/session.md), below the session that wires them.
# The hooks every feature implements (harmonize/feature), above the protocol
# and below the rooms' feature objects.
set(allowed_harmonize/feature "harmonize/feature;harmonize/protocol;harmonize/logic;harmonize/trace;sync;clock;config;report")
set(allowed_harmonize/arrival "harmonize/arrival;config;report")
set(allowed_harmonize/arrival/mpi "harmonize/arrival/mpi;harmonize/arrival;harmonize/feature;config;report")
set(allowed_harmonize/interleave "harmonize/interleave;report")
set(allowed_harmonize/interleave/mpi "harmonize/interleave/mpi;harmonize/interleave;harmonize/arrival;harmonize/feature;harmonize/logic;sync;sync/mpi;config;report")
set(allowed_harmonize/threads "harmonize/threads;harmonize/feature;harmonize/logic;report")
set(allowed_harmonize/trace "harmonize/trace;clock")
set(allowed_harmonize/trace/mpi "harmonize/trace/mpi;harmonize/trace;harmonize/feature;harmonize/protocol;sync;sync/mpi;clock;config;report")
set(allowed_harmonize/collectives "harmonize/collectives;harmonize/trace;sync;clock;report")
set(allowed_harmonize/collectives/mpi
    "harmonize/collectives/mpi;harmonize/collectives;harmonize/feature;harmonize/logic;harmonize/trace;sync;sync/mpi;clock;report")
set(allowed_harmonize/protocol "harmonize/protocol;harmonize/logic;harmonize/arrival;harmonize/trace;sync;clock;report")
# The session's rooms: startup/ (joining the job, the policy agreed, the
# clocks made), session/ (dispatch, communicators, the report); the root keeps
# the lifecycle the shim calls and the session's interface.
set(allowed_harmonize/startup "harmonize/startup;sync;sync/mpi;clock;config;report")
set(allowed_harmonize/session "harmonize/session;harmonize/startup;harmonize;harmonize/feature;harmonize/threads;harmonize/arrival/mpi;harmonize/interleave/mpi;harmonize/logic;harmonize/protocol;harmonize/arrival;harmonize/trace;harmonize/trace/mpi;harmonize/collectives;harmonize/collectives/mpi;sync;sync/mpi;clock;config;report")
set(allowed_harmonize "harmonize;harmonize/startup;harmonize/logic;harmonize/protocol;harmonize/arrival;harmonize/trace;harmonize/trace/mpi;harmonize/collectives;harmonize/collectives/mpi;sync;sync/mpi;clock;config;report")
set(allowed_shim "shim;harmonize;harmonize/collectives;harmonize/collectives/mpi")
# The tools measure with the library's parts, never through its entry points.
set(allowed_tools/common "tools/common;clock;config")
set(allowed_tools "tools;tools/common;harmonize/startup;harmonize/logic;sync;sync/mpi;clock;config;report")

set(violations "")
foreach(layer clock config report sync sync/mpi harmonize/logic harmonize/feature harmonize/arrival harmonize/arrival/mpi
              harmonize/threads harmonize/interleave harmonize/interleave/mpi harmonize/trace
              harmonize/trace/mpi harmonize/collectives harmonize/collectives/mpi harmonize/protocol harmonize/startup
              harmonize/session harmonize shim
              tools/common tools)
  file(GLOB files ${SOURCE_DIR}/${layer}/*.cpp ${SOURCE_DIR}/${layer}/*.hpp)
  foreach(file IN LISTS files)
    file(STRINGS ${file} includes REGEX "^#include \"")
    foreach(line IN LISTS includes)
      string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" header "${line}")
      get_filename_component(folder "${header}" DIRECTORY)
      set(ok FALSE)
      foreach(allowed IN LISTS allowed_${layer} ITEMS common)
        if(folder STREQUAL allowed)
          set(ok TRUE)
        endif()
      endforeach()
      # The public header may be included from the top layers only.
      if(folder STREQUAL "harmonize" AND header MATCHES "mpix_harmonize.h$" AND layer STREQUAL "shim")
        set(ok TRUE)
      endif()
      if(NOT ok)
        file(RELATIVE_PATH where ${SOURCE_DIR} ${file})
        string(APPEND violations "  src/${where} (layer ${layer}) includes \"${header}\"\n")
      endif()
    endforeach()
  endforeach()
endforeach()
if(violations)
  message(FATAL_ERROR "harmonize: a layer includes a header of a layer it may not use "
                      "(docs/session.md, \"Layers, enforced by the build\"):\n${violations}")
endif()
