#include <spawn.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/kcmp.h>
#include <unistd.h>

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

/// Whether descriptor `fd1` of process `pid1` and `fd2` of `pid2` are the same open file (kcmp(2),
/// which syscall(2), variadic, is needed to reach): 1 yes, 0 no, -1 an error. The tests use it to
/// tell a worker's own epoll or eventfd from one it inherited, where /proc only shows their kind.
static inline int cprocess_same_open_file(pid_t pid1, pid_t pid2, int fd1, int fd2) {
    long order = syscall(SYS_kcmp, pid1, pid2, KCMP_FILE, fd1, fd2);
    return order < 0 ? -1 : order == 0;
}
