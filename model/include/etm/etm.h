/* etm/etm.h - everything of libetm in one include. */
#ifndef ETM_ETM_H
#define ETM_ETM_H

#include "etm/check.h"
#include "etm/config.h"
#include "etm/dataslot.h"
#include "etm/error.h"
#include "etm/gen.h"
#include "etm/model.h"
#include "etm/signals.h"
#include "etm/vcd.h"
#include "etm/vector.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "major.minor.patch" of the library. */
const char *etm_version_string(void);

#ifdef __cplusplus
}
#endif
#endif
