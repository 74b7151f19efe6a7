/* etm/version.h - the library's version. */
#ifndef ETM_VERSION_H
#define ETM_VERSION_H

#ifdef __cplusplus
extern "C" {
#endif

/* "major.minor.patch" of the library. */
const char *etm_version_string(void);

#ifdef __cplusplus
}
#endif
#endif
