# `--image PROGRAM.elf` on a real workload (tb/CMakeLists.txt, cli.image.elf.*):
# the ELF placed by its program headers must decode the trace to the same lines
# as the program's .text cut out by binutils (arm-none-eabi-objcopy) and given
# as a raw binary at the address arm-none-eabi-readelf names, with no
# instruction missing from the image; and `etm snapshot --image PROGRAM.elf`
# must give OpenCSD's trc_pkt_lister a folder it decodes without a missing
# address, and `etm decode --snapshot` the same lines again.
#   cmake -DETM=... -DE2E=... -DELF=... -DPROGRAM=... -DOBJCOPY=... -DREADELF=... -DLISTER=... -DWORK=...
#         -P elf_image.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
include(${CMAKE_CURRENT_LIST_DIR}/../common/run_step.cmake)
run(${E2E} --quiet --set ETMCR=0x810 --trace t.bin --stimulus s.vec ${PROGRAM})
run(${READELF} -S ${ELF})
string(REGEX MATCH "\\.text +PROGBITS +([0-9a-f]+)" m "${OUT}")
if(NOT m)
  message(FATAL_ERROR "${ELF}: no .text section in readelf -S")
endif()
set(addr ${CMAKE_MATCH_1})
run(${OBJCOPY} -O binary --only-section=.text ${ELF} text.bin)
run(${ETM} decode --image ${ELF} t.bin)
set(with_elf "${OUT}")
run(${ETM} decode --image ${addr}:text.bin t.bin)
if(NOT with_elf STREQUAL OUT)
  message(FATAL_ERROR "the ELF image decodes otherwise than .text at 0x${addr}")
endif()
string(REGEX MATCHALL "\n[0-9a-f]+  T32 " insns "${with_elf}")
list(LENGTH insns n)
if(n LESS 1000 OR with_elf MATCHES "NO IMAGE")
  message(FATAL_ERROR "the ELF image gave ${n} instruction lines, or an instruction outside it")
endif()
message(STATUS "${PROGRAM}: ${n} instruction lines, the same with the ELF and with .text at 0x${addr}")
run(${ETM} snapshot --image ${ELF} s.vec snap)
run(${LISTER} -ss_dir snap -decode -logstdout -logfilename lister.log)
string(REGEX MATCHALL "OCSD_GEN_TRC_ELEM_INSTR_RANGE" ranges "${OUT}")
list(LENGTH ranges nranges)
if(nranges LESS 100 OR OUT MATCHES "ERROR|ADDR_NACC|ADDR_UNKNOWN|BAD_SEQUENCE")
  message(FATAL_ERROR "trc_pkt_lister on the snapshot made with the ELF: ${nranges} ranges, or a problem")
endif()
run(${ETM} decode --snapshot snap)
if(NOT OUT STREQUAL with_elf)
  message(FATAL_ERROR "etm decode --snapshot decodes otherwise than etm decode --image ${ELF}")
endif()
message(STATUS "${PROGRAM}: the snapshot made with the ELF: ${nranges} ranges in trc_pkt_lister, the same lines in etm decode")
