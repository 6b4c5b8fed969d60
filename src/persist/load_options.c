/*
 * load_options.c — bloomsimd_load_options: the kernel and flags a loaded,
 * mapped or deserialized filter gets.
 *
 * They are checked before the file or buffer is touched, so a bad option
 * fails the same way whatever the input holds, and nothing is read,
 * mapped or allocated for it. A filter's flags are the ones saved with it
 * plus options->flags: adding BLOOMSIMD_CONCURRENT lets several threads
 * insert into a loaded or writably mapped filter that was saved without it.
 * Rejected: letting options replace the saved flags, because 0 would then
 * have to mean "keep" and there would be no way to ask for "none".
 */
#include "format.h"

#include "../../dispatch/dispatch.h"

#define KNOWN_MAP_FLAGS (BLOOMSIMD_MAP_WRITABLE | BLOOMSIMD_MAP_ACCEPT_UNSYNCED)

bloomsimd_status bloomsimd_load_options_check(const bloomsimd_load_options *o, bool allow_map,
                                              bloomsimd_load_choice *choice)
{
    bloomsimd_load_options none = {0};
    if (!o) o = &none;
    if (o->flags & ~BLOOMSIMD_KNOWN_FLAGS)
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "unknown flags 0x%x in the load options",
                              (unsigned)(o->flags & ~BLOOMSIMD_KNOWN_FLAGS));
    if (o->map_flags & ~(allow_map ? KNOWN_MAP_FLAGS : 0u))
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, allow_map ? "unknown map flags 0x%x" :
                                                                          "map flags 0x%x: only bloomsimd_map_with maps",
                              (unsigned)(o->map_flags & ~(allow_map ? KNOWN_MAP_FLAGS : 0u)));
    choice->flags = o->flags;
    choice->map_flags = o->map_flags;
    return bloomsimd_select_kernel(o->kernel, &choice->kernel);
}
