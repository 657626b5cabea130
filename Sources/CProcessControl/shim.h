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

#include <sys/resource.h>

// System calls that reach another process, which the worker's `--check-containment` tries (glibc
// has no wrapper for the first two, and declares prlimit only for _GNU_SOURCE). Each returns the
// call's result (-1 with errno set).
static inline int cprocess_signal_thread(pid_t tgid, pid_t tid, int signal) { return (int)syscall(SYS_tgkill, tgid, tid, signal); }
static inline int cprocess_pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }
static inline int cprocess_read_open_file_limit(pid_t pid) {
    struct rlimit limit;
    return (int)syscall(SYS_prlimit64, pid, RLIMIT_NOFILE, NULL, &limit);
}

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
/// program, reading or writing another process's memory, and reaching another process at all —
/// a signal (kill, tgkill, sigqueue: allowed to this process only; tkill names a thread of any
/// process), a pidfd, another process's resource limits (prlimit: allowed on 0, this process) —
/// which Landlock covers only from ABI 6 (Linux 6.12) and never for pidfds and limits. Everything
/// else is allowed. Returns 0, or -1 (errno set); on an architecture it does not know, it installs
/// nothing and returns 0.
static inline int cprocess_forbid_reaching_out(void) {
#if defined(__x86_64__)
#define CPROCESS_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define CPROCESS_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif
#ifdef CPROCESS_AUDIT_ARCH
    const uint32_t refused[] = {
        SYS_socket, SYS_io_uring_setup, SYS_execve, SYS_execveat, SYS_ptrace, SYS_process_vm_readv,
        SYS_process_vm_writev, SYS_tkill, SYS_pidfd_open, SYS_pidfd_getfd, SYS_pidfd_send_signal,
    };
    // Allowed when their first argument, a process id, is this process's (or 0, for prlimit).
    const uint32_t aimed[] = { SYS_kill, SYS_tgkill, SYS_rt_sigqueueinfo, SYS_rt_tgsigqueueinfo };
    enum {
        REFUSED = sizeof(refused) / sizeof(refused[0]),
        AIMED = sizeof(aimed) / sizeof(aimed[0]),
        // Where each part starts (BPF jumps only forward): the architecture and number (4), the
        // refused numbers, the aimed ones, prlimit, then their process-id checks, then the answers.
        REFUSED_AT = 4,
        AIMED_AT = REFUSED_AT + REFUSED,
        PRLIMIT_AT = AIMED_AT + AIMED,
        AIMED_CHECK_AT = PRLIMIT_AT + 1,     // this process
        PRLIMIT_CHECK_AT = AIMED_CHECK_AT + 2, // 0 or this process
        ALLOW_AT = PRLIMIT_CHECK_AT + 3,
        REFUSE_AT = ALLOW_AT + 1,
        KILL_AT = REFUSE_AT + 1,
        LENGTH = KILL_AT + 1,
    };
    struct sock_filter filter[LENGTH];
    uint32_t self = (uint32_t)getpid();
    int at = 0;
    // Adds an instruction; a jump's offsets count from the instruction after it.
#define CPROCESS_ADD(instruction) (filter[at] = (struct sock_filter)instruction, at++)
#define CPROCESS_TO(target) ((unsigned char)((target) - at - 1))
    CPROCESS_ADD(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
    CPROCESS_ADD(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CPROCESS_AUDIT_ARCH, 0, CPROCESS_TO(KILL_AT)));
    CPROCESS_ADD(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
#if defined(__x86_64__)
    CPROCESS_ADD(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000 /* __X32_SYSCALL_BIT */, CPROCESS_TO(REFUSE_AT), 0));
#else
    CPROCESS_ADD(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffff, CPROCESS_TO(REFUSE_AT), 0)); // no such number: keeps the layout
#endif
    for (int i = 0; i < REFUSED; i++) CPROCESS_ADD(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, refused[i], CPROCESS_TO(REFUSE_AT), 0));
    for (int i = 0; i < AIMED; i++) CPROCESS_ADD(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, aimed[i], CPROCESS_TO(AIMED_CHECK_AT), 0));
    CPROCESS_ADD(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_prlimit64, CPROCESS_TO(PRLIMIT_CHECK_AT), CPROCESS_TO(ALLOW_AT)));
    // The process id is an int: the low 32 bits of the argument (little-endian).
    CPROCESS_ADD(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])));
    CPROCESS_ADD(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, self, CPROCESS_TO(ALLOW_AT), CPROCESS_TO(REFUSE_AT)));
    CPROCESS_ADD(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])));
    CPROCESS_ADD(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, CPROCESS_TO(ALLOW_AT), 0));
    CPROCESS_ADD(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, self, CPROCESS_TO(ALLOW_AT), CPROCESS_TO(REFUSE_AT)));
    CPROCESS_ADD(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    CPROCESS_ADD(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA)));
    CPROCESS_ADD(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS)); // another ABI's calls (x86's int 0x80)
#undef CPROCESS_TO
#undef CPROCESS_ADD
    struct sock_fprog program = { .len = (unsigned short)at, .filter = filter };
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0);
#else
    return 0;
#endif
}
