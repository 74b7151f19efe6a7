# Runs one libFuzzer fuzzer briefly from its seed corpus (a fuzz.run test).
#   cmake -DFUZZER=path -DNAME=harness -DSRC=tb/fuzz -DWORK=dir -DSECONDS=n -DMAXLEN=bytes -P run_fuzzer.cmake
# New inputs go to WORK/corpus-NAME (never into the source tree); a crash, leak,
# timeout or sanitizer report fails the test and leaves the input in WORK.
set(corpus ${WORK}/corpus-${NAME})
file(MAKE_DIRECTORY ${corpus})
# MAXLEN: the harness's longest input (ETM_FUZZ_MAX_LEN in CMakeLists.txt).
set(args -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=2048 -max_len=${MAXLEN} -print_final_stats=1
    -artifact_prefix=${WORK}/${NAME}-)
if(EXISTS ${SRC}/dict/${NAME}.dict)
  list(APPEND args -dict=${SRC}/dict/${NAME}.dict)
endif()
execute_process(COMMAND ${FUZZER} ${args} ${corpus} ${SRC}/corpus/${NAME} ${SRC}/regress/${NAME}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REGEX MATCH "stat::number_of_executed_units: *[0-9]+" execs "${err}")
string(REGEX MATCH "cov: [0-9]+ ft: [0-9]+" cov "${err}")
message(STATUS "${NAME}: ${execs}, ${cov}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fuzzer ${NAME} exited with ${rc}\n${err}")
endif()
