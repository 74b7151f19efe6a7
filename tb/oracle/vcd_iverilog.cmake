# Cross-check of the VCD reader against an independent producer (Icarus Verilog).
#   cmake -DETM=<etm> -DIVERILOG=<iverilog> -DVVP=<vvp> -DSRC=<vcd_tb.v> -DWORK=<dir> -P vcd_iverilog.cmake
# 1. vcd_tb.v dumps tb.vcd and writes the same stimulus as expected.vec.
# 2. `etm convert tb.vcd` must equal expected.vec, cycle for cycle.
# 3. The vector file written as VCD and read back must not change.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
include(${CMAKE_CURRENT_LIST_DIR}/../common/run_step.cmake)
function(data_lines file var)
  file(STRINGS ${WORK}/${file} lines)
  list(FILTER lines EXCLUDE REGEX "^#")
  set(${var} "${lines}" PARENT_SCOPE)
endfunction()

run(${IVERILOG} -o tb.vvp ${SRC})
run(${VVP} -n tb.vvp)
run(${ETM} convert --scope tb.u_etm --clock tb.HCLK --reset-n tb.HRESETn tb.vcd from_vcd.vec)
run(${ETM} convert expected.vec expected_norm.vec)
data_lines(from_vcd.vec a)
data_lines(expected_norm.vec b)
list(LENGTH a na)
if(na LESS 3000)
  message(FATAL_ERROR "only ${na} lines converted")
endif()
if(NOT a STREQUAL b)
  message(FATAL_ERROR "the VCD read by etm differs from the values Icarus Verilog wrote (diff ${WORK}/from_vcd.vec ${WORK}/expected_norm.vec)")
endif()
run(${ETM} convert from_vcd.vec again.vcd)
run(${ETM} convert again.vcd again.vec)
data_lines(again.vec c)
if(NOT a STREQUAL c)
  message(FATAL_ERROR "vector -> VCD -> vector changed the data (diff ${WORK}/from_vcd.vec ${WORK}/again.vec)")
endif()
message(STATUS "${na} lines: VCD from Icarus Verilog equals its own record; round trip unchanged")
