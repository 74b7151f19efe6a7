// rtl_lib.cpp - the library etm_rtl holds the Verilated RTL twin (verilate() adds
// its sources); this file only gives the library a source of its own.
#include "Vetm_core.h"
