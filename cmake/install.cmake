# What `cmake --install` puts where (GNU directories under CMAKE_INSTALL_PREFIX),
# and the Debian package `cpack -G DEB` makes of it (docs/install.md):
#
#   bin/etm                                  the tool
#   lib/libetm.so.0 (.so, .a), libetm_sc.a   the model's library; the SystemC modules
#   lib/libetm_dpi.so                        the DPI-C layer (libetm inside), for -sv_lib
#   include/etm/*.h, *.def                   public headers; include/etm/sc/etm_sc.h,
#                                            include/etm/dpi/etm_dpi.h
#   lib/pkgconfig/etm.pc, lib/cmake/etm/     pkg-config file, CMake package (etm::...)
#   share/etm/rtl/                           the RTL twin, etm.f (its file list), waivers
#   share/etm/dpi/                           the SystemVerilog package and scoreboard
#   share/man/man1/etm.1, share/bash-completion/completions/etm
#   share/doc/etm-model/                     README and docs/
include(CMakePackageConfigHelpers)

set(ETM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/etm)
set(ETM_INSTALL_RTLDIR ${CMAKE_INSTALL_DATADIR}/etm/rtl)
set(ETM_INSTALL_DPIDIR ${CMAKE_INSTALL_DATADIR}/etm/dpi)

# ---- Libraries and the tool ---------------------------------------------------------------
install(TARGETS etm_static etm_shared EXPORT etmTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_COMPONENT dev)
install(TARGETS etm RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
foreach(dir ${ETM_LIB_INCLUDES})
  install(DIRECTORY ${dir}/etm/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/etm
          FILES_MATCHING PATTERN "*.h" PATTERN "*.def")
endforeach()

# ---- The DPI-C layer and its SystemVerilog side ---------------------------------------------
install(TARGETS etm_dpi_shared EXPORT etmTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${PROJECT_SOURCE_DIR}/tb/dpi/etm_dpi.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/etm/dpi)
install(FILES ${PROJECT_SOURCE_DIR}/tb/dpi/etm_dpi_pkg.sv ${PROJECT_SOURCE_DIR}/tb/dpi/etm_dpi_defs.svh
              ${PROJECT_SOURCE_DIR}/tb/dpi/etm_scoreboard.sv ${PROJECT_SOURCE_DIR}/tb/dpi/lint_waivers.vlt
        DESTINATION ${ETM_INSTALL_DPIDIR})

# ---- The SystemC modules (the C model's; the RTL's is built from share/etm/rtl) ------------
install(TARGETS etm_sc EXPORT etmScTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${PROJECT_SOURCE_DIR}/tb/systemc/etm_sc.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/etm/sc)

# ---- The RTL twin ---------------------------------------------------------------------------
install(FILES ${ETM_RTL_SOURCES} ${ETM_RTL_DIR}/etm_ports.svh ${ETM_RTL_DIR}/etm.f ${ETM_RTL_DIR}/lint_waivers.vlt
        DESTINATION ${ETM_INSTALL_RTLDIR})

# ---- The Python package (docs/python.md) ------------------------------------------------------
# Where Debian's python3 looks for packages under /usr; for another prefix,
# PYTHONPATH names PREFIX/lib/python3/dist-packages. It finds libetm.so.0 three
# levels up, in PREFIX/lib.
install(FILES ${PROJECT_SOURCE_DIR}/python/etm/__init__.py DESTINATION ${CMAKE_INSTALL_LIBDIR}/python3/dist-packages/etm)
install(FILES ${PROJECT_SOURCE_DIR}/python/examples/fifo_sweep.py DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)

# ---- Man page, completion, documentation ----------------------------------------------------
install(FILES ${PROJECT_SOURCE_DIR}/docs/man/etm.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${PROJECT_SOURCE_DIR}/scripts/etm-completion.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME etm)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
# The vector format, which etm convert --help and the man page name.
install(FILES ${PROJECT_SOURCE_DIR}/vectors/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR}/vectors)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs PATTERN "man" EXCLUDE)

# ---- pkg-config and the CMake package -------------------------------------------------------
# The prefix relative to the .pc file, so that the tree works wherever it is installed.
file(RELATIVE_PATH ETM_PC_TO_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" ETM_PC_TO_PREFIX "${ETM_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/etm.pc.in ${PROJECT_BINARY_DIR}/etm.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/etm.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
install(EXPORT etmTargets NAMESPACE etm:: DESTINATION ${ETM_INSTALL_CMAKEDIR})
install(EXPORT etmScTargets NAMESPACE etm:: DESTINATION ${ETM_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/etmConfig.cmake.in ${PROJECT_BINARY_DIR}/etmConfig.cmake
  INSTALL_DESTINATION ${ETM_INSTALL_CMAKEDIR} PATH_VARS ETM_INSTALL_RTLDIR ETM_INSTALL_DPIDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/etmConfigVersion.cmake COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/etmConfig.cmake ${PROJECT_BINARY_DIR}/etmConfigVersion.cmake
        DESTINATION ${ETM_INSTALL_CMAKEDIR})

# ---- The Debian package ---------------------------------------------------------------------
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME etm-model)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "etm-model developers <etm-model@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "cycle-accurate model of the ARM ETM, its decoders, RTL twin and protocol scoreboard")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The Python package (import etm) needs NumPy; the libraries' own needs come from shlibdeps.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3, python3-numpy")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "verilator, libsystemc-dev, pkg-config")
include(CPack)
