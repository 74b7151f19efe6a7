# run_step.cmake - what the test scripts that `cmake -P` runs share:
# run(COMMAND ARGS...) runs a command in ${WORK}, stops the test on a non-zero
# exit with the command and its output, and leaves its standard output in OUT.
function(run)
  execute_process(COMMAND ${ARGV} WORKING_DIRECTORY ${WORK} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGV}\n${out}\n${err}")
  endif()
  set(OUT "${out}" PARENT_SCOPE)
endfunction()
