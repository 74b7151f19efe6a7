# etm-qemu on firmware that never exits (workloads/programs/forever.c).
#   cmake -DQEMU_TOOL=<etm-qemu> -DELF=<forever-*.elf> -DWORK=<dir> -DMODE=<mode> -P forever.cmake
# MODE:
#   idle        forever-sleep: gives up, naming the WFI it sleeps in, within the
#               idle limit (3 s), exit status 2
#   max_insns   forever-spin: gives up at --max-insns, exit status 2
#   timeout     forever-spin: gives up at --timeout, exit status 2
#   stop_after  --stop-after 500 records exactly 500 instructions, exit status 0
#               (the records are counted here, not taken from the tool's summary)
file(MAKE_DIRECTORY ${WORK})
set(out ${WORK}/${MODE}.rec)
if(MODE STREQUAL "idle")
  set(args --idle-timeout 3)
  set(want_rc 2)
  set(want_err "executed nothing for 3 s \\(--idle-timeout\\) after [0-9]+ instructions, the last at 0x[0-9a-f]+ \\(WFI\\): the core sleeps with nothing to wake it")
elseif(MODE STREQUAL "max_insns")
  set(args --max-insns 200000)
  set(want_rc 2)
  set(want_err "more than 200000 instructions and the program has not exited")
elseif(MODE STREQUAL "timeout")
  set(args --timeout 2 --max-insns 4000000000)
  set(want_rc 2)
  set(want_err "the program ran for 2 s \\(the time limit, --timeout\\) without exiting: [0-9]+ instructions so far")
elseif(MODE STREQUAL "stop_after")
  set(args --stop-after 500)
  set(want_rc 0)
  set(want_err "stopped after 500 instructions \\(--stop-after\\); the program had not exited")
else()
  message(FATAL_ERROR "unknown MODE ${MODE}")
endif()
execute_process(COMMAND ${QEMU_TOOL} record ${args} ${ELF} -o ${out}
                RESULT_VARIABLE rc ERROR_VARIABLE err TIMEOUT 60)
if(NOT rc STREQUAL want_rc)
  message(FATAL_ERROR "exit status ${rc}, expected ${want_rc}\n${err}")
endif()
if(NOT err MATCHES "${want_err}")
  message(FATAL_ERROR "stderr does not say '${want_err}':\n${err}")
endif()
if(err MATCHES "killed by signal")
  message(FATAL_ERROR "the stop of QEMU is reported as a failure of its own:\n${err}")
endif()
if(MODE STREQUAL "stop_after")
  file(STRINGS ${out} recs REGEX "^[0-9a-f]+ [24] ")
  list(LENGTH recs n)
  if(NOT n EQUAL 500)
    message(FATAL_ERROR "${out} holds ${n} instruction records, expected 500")
  endif()
endif()
