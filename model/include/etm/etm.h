/* etm/etm.h - everything of libetm in one include: the Thumb-2 instruction
 * set, the definitions, the register image, the ETM core, the decoders, file
 * I/O and stimulus (docs/architecture.md shows the layers). */
#ifndef ETM_ETM_H
#define ETM_ETM_H

#include "etm/check.h"
#include "etm/cm3.h"
#include "etm/config.h"
#include "etm/config_text.h"
#include "etm/coresight.h"
#include "etm/dataslot.h"
#include "etm/decode_v1.h"
#include "etm/decode_v3.h"
#include "etm/error.h"
#include "etm/gen.h"
#include "etm/model.h"
#include "etm/program.h"
#include "etm/regmap.h"
#include "etm/signals.h"
#include "etm/stim.h"
#include "etm/thumb.h"
#include "etm/tpiu.h"
#include "etm/uart.h"
#include "etm/vcd.h"
#include "etm/vector.h"
#include "etm/verify.h"
#include "etm/watch.h"
#include "etm/sigrok.h"
#include "etm/snapshot.h"
#include "etm/version.h"

#endif
