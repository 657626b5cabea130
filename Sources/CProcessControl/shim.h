#include <spawn.h>
#include <sys/prctl.h>

/// prctl(2) is variadic, which Swift cannot call: the one setting the image worker needs.
/// Once set, no exec can grant this process or its children privileges it does not have.
static inline int cprocess_forbid_new_privileges(void) {
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

// glibc declares these two only for _GNU_SOURCE, which Swift's Glibc module is built without;
// both are in every glibc since 2.34 (Debian 12 has 2.36).

/// A pipe whose two ends are close-on-exec from the start (pipe(2) then fcntl(2) leaves an
/// instant in which a child started by another thread inherits them).
extern int pipe2(int pipefd[2], int flags);

/// A spawn's action that closes every descriptor from `from` on in the child: it then inherits
/// only what the actions before it set up, whatever the parent has open without close-on-exec.
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
