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

// MARK: The image worker's containment

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

/// Takes away, for good, this process's access to every file and directory it has not opened yet
/// and (Landlock ABI 4 on) to TCP, and (ABI 6 on) to abstract unix sockets and signals outside
/// itself: Landlock with rules for nothing. Descriptors already open (the worker's pipes, stderr)
/// keep working. Needs no privilege (after PR_SET_NO_NEW_PRIVS). Returns the Landlock ABI applied,
/// 0 when the kernel has no Landlock, -1 (errno set) when it failed.
static inline int cprocess_forbid_opening_files(void) {
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1U /* LANDLOCK_CREATE_RULESET_VERSION */);
    // EPERM: a container's or a unit's seccomp profile that predates Landlock (Docker before 23,
    // systemd's @system-service before 2024) refuses the call itself: as for a kernel without it.
    if (abi < 0) return (errno == ENOSYS || errno == EOPNOTSUPP || errno == EPERM) ? 0 : -1;
    // handled_access_fs, handled_access_net (ABI 4), scoped (ABI 6): as the kernel's
    // struct landlock_ruleset_attr, given only as long as the running ABI knows it.
    uint64_t attr[3] = {0, 0, 0};
    attr[0] = (1ULL << 13) - 1;          // ABI 1: execute … make_sym
    if (abi >= 2) attr[0] |= 1ULL << 13; // refer
    if (abi >= 3) attr[0] |= 1ULL << 14; // truncate
    if (abi >= 5) attr[0] |= 1ULL << 15; // ioctl_dev
    size_t size = sizeof(uint64_t);
    if (abi >= 4) { attr[1] = (1ULL << 0) | (1ULL << 1); size = 2 * sizeof(uint64_t); } // bind_tcp, connect_tcp
    if (abi >= 6) { attr[2] = (1ULL << 0) | (1ULL << 1); size = 3 * sizeof(uint64_t); } // abstract unix sockets, signals
    long ruleset = syscall(SYS_landlock_create_ruleset, attr, size, 0);
    if (ruleset < 0) return -1;
    long restricted = syscall(SYS_landlock_restrict_self, (int)ruleset, 0);
    int saved = errno;
    close((int)ruleset);
    errno = saved;
    return restricted < 0 ? -1 : (int)abi;
}

/// A seccomp filter that refuses (EACCES), for good, the system calls a decoder made to misbehave
/// would need to reach out: making a socket of any kind (UDP and unix sockets too, which Landlock
/// does not cover), io_uring (which can make sockets without the socket call), running another
/// program, and reading or writing another process's memory. Everything else is allowed. Returns 0,
/// or -1 (errno set); on an architecture it does not know, it installs nothing and returns 0.
static inline int cprocess_forbid_reaching_out(void) {
#if defined(__x86_64__)
#define CPROCESS_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define CPROCESS_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif
#ifdef CPROCESS_AUDIT_ARCH
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CPROCESS_AUDIT_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS), // another ABI's calls (x86's 32-bit int 0x80)
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#if defined(__x86_64__)
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000 /* __X32_SYSCALL_BIT */, 7, 0),
#else
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffff, 7, 0), // keeps the jump offsets below the same
#endif
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 6, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_io_uring_setup, 5, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_execve, 4, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_execveat, 3, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ptrace, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, 1, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_writev, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog program = { .len = (unsigned short)(sizeof(filter) / sizeof(filter[0])), .filter = filter };
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0);
#else
    return 0;
#endif
}
