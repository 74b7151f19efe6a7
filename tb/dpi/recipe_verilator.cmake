# The Verilator recipe of docs/dpi.md ("Other simulators"), as written there:
# the worked example built by verilator --binary outside CMake, then run.
#   cmake -DTOP=<project top> -DLIBETM=<build>/model/libetm.a -DWORK=<dir> -DVERILATOR=<verilator> -P recipe_verilator.cmake
# Keep the two in step: a change here is a change of the documented recipe.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(inc "-I${TOP}/tb/dpi -I${TOP}/model/include")
foreach(l defs isa config core tpiu decode verify io stim)
  string(APPEND inc " -I${TOP}/model/${l}/include")
endforeach()
execute_process(
  COMMAND ${VERILATOR} --binary --timing --top-module tb_etm +incdir+tb/dpi
          tb/dpi/etm_dpi_pkg.sv tb/dpi/etm_scoreboard.sv -F rtl/etm.f tb/dpi/example/tb_etm.sv
          ${TOP}/tb/dpi/etm_dpi.c -CFLAGS ${inc} -LDFLAGS "${LIBETM} -lz -lm" --Mdir ${WORK}/obj_dir
  WORKING_DIRECTORY ${TOP} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the documented verilator command failed (${rc}):\n${err}")
endif()
execute_process(COMMAND ${WORK}/obj_dir/Vtb_etm +etm_preset=etm-m3 +stim_seed=1 +stim_cycles=3000
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
# Every stimulus cycle and the drain after it compared (the drain's length is the model's).
if(NOT rc EQUAL 0 OR NOT out MATCHES "PASS: ([0-9]+) cycles compared, 0 mismatches" OR CMAKE_MATCH_1 LESS 3000)
  message(FATAL_ERROR "the example built by the recipe did not pass (${rc}):\n${out}\n${err}")
endif()
message(STATUS "recipe: ${out}")
