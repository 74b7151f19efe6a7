/* etm/consts.h - the protocol's named constants and the implementation's sizes
 * (from etm/consts.def): ETMv3 header codes, I-sync reasons, PIPESTAT codes,
 * ETMv1 address reasons, ETMINTSTAT codes, buffer sizes. */
#ifndef ETM_CONSTS_H
#define ETM_CONSTS_H

#ifdef __cplusplus
extern "C" {
#endif

enum etm_consts {
#define ETM_CONST(cname, svname, bits, value, doc) cname = (value),
#include "etm/consts.def"
    ETM_CONSTS_END
};

#ifdef __cplusplus
}
#endif
#endif
