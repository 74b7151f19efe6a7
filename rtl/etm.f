// etm.f - the RTL twin's sources in compile order: the packages first, then one
// module per stage, then the top. Paths are relative to this folder:
//   verilator -F rtl/etm.f ...   (-F: relative to the file list)
//   cd rtl && yosys -p "read_verilog -defer -sv -I. $(grep -v '^[/+]' etm.f)"
// CMake reads it too (the top CMakeLists.txt, ETM_RTL_SOURCES).
+incdir+.
etm_defs_pkg.sv
etm_pkg.sv
etm_gen_ph_pkg.sv
etm_check.sv
etm_frontend.sv
etm_filter.sv
etm_pheader.sv
etm_dpacket.sv
etm_packet_plan.sv
etm_packet.sv
etm_gen.sv
etm_fifo.sv
etm_pipestat.sv
etm_regs.sv
etm_core.sv
etm_top.sv
etm_tpiu.sv
