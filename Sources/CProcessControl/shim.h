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

#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>

// `--check-containment` tries system calls glibc has no wrapper for, or declares only for
// _GNU_SOURCE (prlimit, sched_setaffinity), or that are variadic (fcntl, ioctl): syscall(2) with up
// to five arguments, the call's result (-1 with errno set).
static inline long cprocess_syscall(long number, long a, long b, long c, long d, long e) { return syscall(number, a, b, c, d, e); }

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
/// program, reading another process's memory (process_vm_*, perf_event_open's stack samples), and
/// acting on another process, which runs as the same user: a signal (kill, tgkill, sigqueue:
/// allowed to this process only; tkill names a thread of any process), a signal sent for it by a
/// file's owner (fcntl F_SETOWN, the FIOSETOWN/SIOCSPGRP/TIOCSPGRP ioctls), a pidfd, kcmp, another
/// process's limits, scheduling, CPUs, priority or memory placement (prlimit, sched_set*,
/// migrate_pages, move_pages: allowed on 0 or this process; setpriority, ioprio_set: refused).
/// Landlock covers signals only from ABI 6 (Linux 6.12), and none of the rest. Everything else is
/// allowed. Returns 0, or -1 (errno set); on an architecture it does not know, it installs nothing
/// and returns 0.
static inline int cprocess_forbid_reaching_out(void) {
#if defined(__x86_64__)
#define CPROCESS_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define CPROCESS_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif
#ifdef CPROCESS_AUDIT_ARCH
    const uint32_t refused[] = {
        SYS_socket, SYS_io_uring_setup, SYS_execve, SYS_execveat, SYS_ptrace, SYS_process_vm_readv,
        SYS_process_vm_writev, SYS_perf_event_open, SYS_tkill, SYS_pidfd_open, SYS_pidfd_getfd,
        SYS_pidfd_send_signal, SYS_kcmp, SYS_setpriority, SYS_ioprio_set,
    };
    // Allowed when their first argument, a process id, is this process's.
    const uint32_t atSelf[] = { SYS_kill, SYS_tgkill, SYS_rt_sigqueueinfo, SYS_rt_tgsigqueueinfo };
    // Allowed when their first argument is this process's id or 0 (this process).
    const uint32_t atSelfOrZero[] = {
        SYS_prlimit64, SYS_sched_setaffinity, SYS_sched_setscheduler, SYS_sched_setparam, SYS_sched_setattr,
        SYS_migrate_pages, SYS_move_pages,
    };
    // Refused when their second argument (fcntl's command, ioctl's request) is one of these.
    const uint32_t ownerCommands[] = { F_SETOWN, 15 /* F_SETOWN_EX */ };
    const uint32_t ownerRequests[] = { 0x8901 /* FIOSETOWN */, 0x8902 /* SIOCSPGRP */, 0x5410 /* TIOCSPGRP */ };
    enum {
        REFUSED = sizeof(refused) / sizeof(refused[0]),
        AT_SELF = sizeof(atSelf) / sizeof(atSelf[0]),
        AT_SELF_OR_ZERO = sizeof(atSelfOrZero) / sizeof(atSelfOrZero[0]),
        COMMANDS = sizeof(ownerCommands) / sizeof(ownerCommands[0]),
        REQUESTS = sizeof(ownerRequests) / sizeof(ownerRequests[0]),
        // Where each part starts (BPF jumps only forward): the architecture and number (4), the
        // numbers (each list, then fcntl and ioctl), the checks of their arguments, the answers.
        NUMBERS_AT = 4,
        SELF_CHECK_AT = NUMBERS_AT + REFUSED + AT_SELF + AT_SELF_OR_ZERO + 2,
        SELF_OR_ZERO_CHECK_AT = SELF_CHECK_AT + 2,
        FCNTL_CHECK_AT = SELF_OR_ZERO_CHECK_AT + 3,
        IOCTL_CHECK_AT = FCNTL_CHECK_AT + 1 + COMMANDS,
        ALLOW_AT = IOCTL_CHECK_AT + 1 + REQUESTS,
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
#define CPROCESS_IF(value, target) CPROCESS_ADD(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (value), CPROCESS_TO(target), 0))
    // A process id, a command or a request is an int: the low 32 bits of the argument (little-endian).
#define CPROCESS_LOAD_ARGUMENT(index) CPROCESS_ADD(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[index])))
    CPROCESS_ADD(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
    CPROCESS_ADD(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CPROCESS_AUDIT_ARCH, 0, CPROCESS_TO(KILL_AT)));
    CPROCESS_ADD(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
#if defined(__x86_64__)
    CPROCESS_ADD(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000 /* __X32_SYSCALL_BIT */, CPROCESS_TO(REFUSE_AT), 0));
#else
    CPROCESS_IF(0xffffffff, REFUSE_AT); // no such number: keeps the layout
#endif
    for (int i = 0; i < REFUSED; i++) CPROCESS_IF(refused[i], REFUSE_AT);
    for (int i = 0; i < AT_SELF; i++) CPROCESS_IF(atSelf[i], SELF_CHECK_AT);
    for (int i = 0; i < AT_SELF_OR_ZERO; i++) CPROCESS_IF(atSelfOrZero[i], SELF_OR_ZERO_CHECK_AT);
    CPROCESS_IF(SYS_fcntl, FCNTL_CHECK_AT);
    CPROCESS_ADD(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ioctl, CPROCESS_TO(IOCTL_CHECK_AT), CPROCESS_TO(ALLOW_AT)));
    // SELF_CHECK_AT
    CPROCESS_LOAD_ARGUMENT(0);
    CPROCESS_ADD(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, self, CPROCESS_TO(ALLOW_AT), CPROCESS_TO(REFUSE_AT)));
    // SELF_OR_ZERO_CHECK_AT
    CPROCESS_LOAD_ARGUMENT(0);
    CPROCESS_IF(0, ALLOW_AT);
    CPROCESS_ADD(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, self, CPROCESS_TO(ALLOW_AT), CPROCESS_TO(REFUSE_AT)));
    // FCNTL_CHECK_AT, IOCTL_CHECK_AT: a refused command or request, else allowed.
    CPROCESS_LOAD_ARGUMENT(1);
    for (int i = 0; i < COMMANDS; i++) CPROCESS_IF(ownerCommands[i], REFUSE_AT);
    filter[at - 1].jf = CPROCESS_TO(ALLOW_AT) + 1; // the last command's other way: allowed
    CPROCESS_LOAD_ARGUMENT(1);
    for (int i = 0; i < REQUESTS; i++) CPROCESS_IF(ownerRequests[i], REFUSE_AT);
    // (the last request's other way falls through to ALLOW_AT)
    CPROCESS_ADD(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    CPROCESS_ADD(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA)));
    CPROCESS_ADD(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS)); // another ABI's calls (x86's int 0x80)
#undef CPROCESS_LOAD_ARGUMENT
#undef CPROCESS_IF
#undef CPROCESS_TO
#undef CPROCESS_ADD
    if (at != LENGTH) { errno = EINVAL; return -1; } // the layout above and the instructions disagree
    struct sock_fprog program = { .len = (unsigned short)at, .filter = filter };
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0);
#else
    return 0;
#endif
}
