# etm_verilate(TARGET <verilate() arguments>): Verilator's verilate(), with the
# list of generated C++ files kept current across RTL edits.
#
# verilate() learns which C++ files Verilator writes when CMake configures, and
# compiles that list. Verilator names its files after a hash of their contents, so
# an RTL edit can change the names: the build then re-runs Verilator but compiles
# the list of the configure before, and fails to link (undefined
# Vx___024root__... functions) until CMake is run again. Here every file a model
# was built from is a configure dependency, so an edit re-runs the configure
# step at the next build, and there Verilator is run again, before the list is
# read, for each model whose sources are newer than its list.
function(etm_verilate target)
  cmake_parse_arguments(V "COVERAGE;SYSTEMC;TRACE;TRACE_FST;TRACE_STRUCTS"
    "DIRECTORY;PREFIX;THREADS;TOP_MODULE;TRACE_THREADS"
    "INCLUDE_DIRS;OPT_FAST;OPT_GLOBAL;OPT_SLOW;SOURCES;VERILATOR_ARGS" ${ARGN})
  if(NOT V_PREFIX)
    message(FATAL_ERROR "etm_verilate(${target}): PREFIX is required")
  endif()
  get_target_property(binary_dir ${target} BINARY_DIR)
  set(vdir "${binary_dir}/CMakeFiles/${target}.dir/${V_PREFIX}.dir")
  if(V_DIRECTORY)
    set(vdir "${V_DIRECTORY}")
  endif()
  set(list_file "${vdir}/${V_PREFIX}_copy.cmake")
  set(deps ${V_SOURCES})
  if(EXISTS "${list_file}")
    include("${list_file}")  # sets ${V_PREFIX}_DEPS: every file Verilator read
    list(APPEND deps ${${V_PREFIX}_DEPS})
    foreach(dep ${deps})
      if(EXISTS "${dep}" AND "${dep}" IS_NEWER_THAN "${list_file}")
        file(REMOVE "${vdir}/verilator_args.txt")  # verilate() re-runs Verilator now
        break()
      endif()
    endforeach()
  endif()
  list(FILTER deps EXCLUDE REGEX "^${CMAKE_BINARY_DIR}/")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${deps})
  verilate(${target} ${ARGN})
endfunction()
