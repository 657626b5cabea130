#include <sys/prctl.h>

/// prctl(2) is variadic, which Swift cannot call: the one setting the image worker needs.
/// Once set, no exec can grant this process or its children privileges it does not have.
static inline int cprocess_forbid_new_privileges(void) {
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}
