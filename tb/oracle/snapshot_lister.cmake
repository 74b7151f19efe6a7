# etm snapshot decoded by OpenCSD's own command-line lister.
#   cmake -DETM=<etm> -DLISTER=<trc_pkt_lister> -DWORK=<dir> -DSET=<REG=0xV> [-DIMPL=<ETMCR_IMPL>]
#         [-DTPIU=<PINS[:DIV]>] -P snapshot_lister.cmake
# With TPIU the trace goes through a TPIU (etm snapshot --tpiu): trace.bin holds
# its CoreSight-formatted pins, which trc_pkt_lister takes apart itself
# (-tpiu_hsync: frame and half-word syncs).
# The generator's log says how many instructions ran (minus cancelled ones);
# trc_pkt_lister must decode exactly that many, with no error, no inaccessible
# and no unknown address. The cancelled atom stands alone (CANCEL_FORM=0):
# OpenCSD 1.3.3 keeps one that shares its header (docs/silicon.md, "Cancel"),
# which the judge of the round trips classifies and a count here cannot.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
include(${CMAKE_CURRENT_LIST_DIR}/../common/run_step.cmake)
run(${ETM} gen --cycles 200000 --seed 7 --events events.txt --image img stim.vec)
set(impl "")
if(IMPL)
  set(impl --set ETMCR_IMPL=${IMPL})
endif()
set(tpiu "")
set(lister_tpiu "")
if(TPIU)
  set(tpiu --tpiu ${TPIU} --set ETMTRACEIDR=0x2B)
  set(lister_tpiu -tpiu_hsync)
endif()
run(${ETM} snapshot ${impl} --set ${SET} --set CANCEL_FORM=0x0 ${tpiu} --image 0:img.thread.bin --image 20000000:img.handler.bin stim.vec snap)
run(${LISTER} -ss_dir snap -decode ${lister_tpiu} -logstdout -logfilename lister.log)
file(WRITE ${WORK}/lister.txt "${OUT}")
string(REGEX MATCHALL "OCSD_GEN_TRC_ELEM_INSTR_RANGE" ranges "${OUT}")
list(LENGTH ranges nranges)
file(STRINGS ${WORK}/events.txt insns REGEX " insn ")
file(STRINGS ${WORK}/events.txt cancels REGEX " cancel ")
list(LENGTH insns ninsn)
list(LENGTH cancels ncancel)
math(EXPR expected "${ninsn} - ${ncancel}")
if(NOT nranges EQUAL expected)
  message(FATAL_ERROR "trc_pkt_lister decoded ${nranges} instructions; ${expected} executed (see ${WORK}/lister.txt)")
endif()
if(OUT MATCHES "ERROR|ADDR_NACC|ADDR_UNKNOWN|BAD_SEQUENCE|RESERVED")
  message(FATAL_ERROR "trc_pkt_lister reported a problem (see ${WORK}/lister.txt)")
endif()
message(STATUS "trc_pkt_lister decoded all ${nranges} instructions")
run(${ETM} decode --snapshot snap --no-elements --stats)
if(NOT OUT MATCHES "instructions ${expected}, ")
  message(FATAL_ERROR "etm decode --snapshot: expected instructions ${expected}:\n${OUT}")
endif()
message(STATUS "etm decode --snapshot decoded all ${expected} instructions")
