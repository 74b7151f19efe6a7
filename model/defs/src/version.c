/* version.c - the library's version string. */
#include "etm/version.h"

#ifndef ETM_VERSION
#define ETM_VERSION "0.0.0"
#endif

const char *etm_version_string(void) { return ETM_VERSION; }
