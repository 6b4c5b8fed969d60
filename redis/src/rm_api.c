/*
 * rm_api.c — resolves the module API functions declared in rm_api.h.
 *
 * The server passes a context whose first pointer-sized word is the address
 * of its GetApi function: int GetApi(const char *name, void *out_pointer).
 * Each of our function pointers is looked up by its RedisModule_ name.
 */
#include "rm_api.h"

#include <string.h>

#define BSR_RM_DEFINE(ret, name, args) ret(*rm_##name) args;
BSR_RM_FUNCTIONS(BSR_RM_DEFINE)
#undef BSR_RM_DEFINE

typedef int (*bsr_get_api_fn)(const char *name, void *out);

int rm_api_init(RedisModuleCtx *ctx, const char *name, int version) {
    bsr_get_api_fn get_api;
    void *first_word = ((void **)(void *)ctx)[0];
    memcpy(&get_api, &first_word, sizeof get_api); /* object to function pointer, without a cast warning */

    int missing = 0;
#define BSR_RM_RESOLVE(ret, fname, args) \
    if (get_api("RedisModule_" #fname, (void *)&rm_##fname) != REDISMODULE_OK) { \
        rm_##fname = NULL; \
        missing = 1; \
    }
    BSR_RM_FUNCTIONS(BSR_RM_RESOLVE)
#undef BSR_RM_RESOLVE
    if (missing) {
        if (rm_Log) {
#define BSR_RM_REPORT(ret, fname, args) \
    if (!rm_##fname) rm_Log(ctx, "warning", "bloomsimd: this server lacks RedisModule_" #fname);
            BSR_RM_FUNCTIONS(BSR_RM_REPORT)
#undef BSR_RM_REPORT
        }
        return REDISMODULE_ERR;
    }
    if (rm_IsModuleNameBusy(name)) return REDISMODULE_ERR;
    rm_SetModuleAttribs(ctx, name, version, REDISMODULE_APIVER_1);
    return REDISMODULE_OK;
}
