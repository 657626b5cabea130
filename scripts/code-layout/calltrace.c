// calltrace HITS ADDRESSES PROGRAM [ARGUMENTS...]
//
// Runs PROGRAM (a position-independent executable) with a one-shot breakpoint on the first byte of
// each piece of code listed in ADDRESSES (hexadecimal link-time addresses, one per line: where each
// function's section starts, from the linker's map), and appends an address to HITS the first time
// any of the program's threads runs it: the functions the program runs, in the order it first runs
// them. Used by scripts/code-layout.sh; a development tool, not part of the server.
//
// Each breakpoint is an int3 written over a function's first byte once the program is mapped
// (ptrace, at its exec); when a thread stops on one, the byte is put back, the thread's instruction
// pointer moved back onto it, and the thread goes on. New threads are traced as they are created
// (PTRACE_O_TRACECLONE); processes the program starts (its image workers) are not traced. The
// program is killed when calltrace ends (PTRACE_O_EXITKILL), and calltrace ends when it does.
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

static uint64_t *addresses;
static unsigned char *original, *entered;
static size_t count;

static int compare(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

// Where PROGRAM's first page is mapped in process `pid`.
static uint64_t load_base(pid_t pid, const char *program) {
    char maps_path[64], line[PATH_MAX + 256], real[PATH_MAX];
    if (!realpath(program, real)) return 0;
    snprintf(maps_path, sizeof maps_path, "/proc/%d/maps", pid);
    FILE *maps = fopen(maps_path, "r");
    if (!maps) return 0;
    uint64_t base = 0;
    while (fgets(line, sizeof line, maps)) {
        unsigned long start, offset;
        char file[PATH_MAX] = "";
        if (sscanf(line, "%lx-%*x %*s %lx %*s %*s %4095s", &start, &offset, file) == 3 && offset == 0 && strcmp(file, real) == 0) {
            base = start;
            break;
        }
    }
    fclose(maps);
    return base;
}

static int read_addresses(const char *path) {
    FILE *in = fopen(path, "r");
    if (!in) return -1;
    size_t capacity = 1 << 16;
    addresses = malloc(capacity * sizeof *addresses);
    unsigned long address;
    while (fscanf(in, "%lx", &address) == 1) {
        if (count == capacity) addresses = realloc(addresses, (capacity *= 2) * sizeof *addresses);
        addresses[count++] = address;
    }
    fclose(in);
    qsort(addresses, count, sizeof *addresses, compare);
    original = calloc(count, 1);
    entered = calloc(count, 1);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: calltrace HITS ADDRESSES PROGRAM [ARGUMENTS...]\n");
        return 2;
    }
    if (read_addresses(argv[2]) != 0) { perror(argv[2]); return 1; }
    FILE *hits = fopen(argv[1], "ae");  // not inherited by the program
    if (!hits) { perror(argv[1]); return 1; }

    pid_t program = fork();
    if (program == 0) {
        if (ptrace(PTRACE_TRACEME, 0, 0, 0) != 0) _exit(126);
        raise(SIGSTOP);
        execv(argv[3], argv + 3);
        _exit(127);
    }
    int status;
    waitpid(program, &status, 0);
    ptrace(PTRACE_SETOPTIONS, program, 0, PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL);
    ptrace(PTRACE_CONT, program, 0, 0);
    waitpid(program, &status, 0);
    if (!(WIFSTOPPED(status) && (status >> 16) == PTRACE_EVENT_EXEC)) {
        fprintf(stderr, "calltrace: %s did not start\n", argv[3]);
        return 1;
    }
    uint64_t base = load_base(program, argv[3]);
    if (!base) { fprintf(stderr, "calltrace: %s is not mapped\n", argv[3]); return 1; }

    size_t inserted = 0;
    for (size_t i = 0; i < count; i++) {
        errno = 0;
        long word = ptrace(PTRACE_PEEKTEXT, program, base + addresses[i], 0);
        if (errno) { entered[i] = 1; continue; }
        original[i] = word & 0xff;
        if (ptrace(PTRACE_POKETEXT, program, base + addresses[i], (word & ~0xffL) | 0xcc) == 0) inserted++;
        else entered[i] = 1;
    }
    fprintf(stderr, "calltrace: %zu breakpoints\n", inserted);
    if (inserted == 0) return 1;
    ptrace(PTRACE_CONT, program, 0, 0);

    for (;;) {
        pid_t thread = waitpid(-1, &status, __WALL);
        if (thread < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (WIFEXITED(status) || WIFSIGNALED(status)) {
            if (thread == program) break;
            continue;
        }
        if (!WIFSTOPPED(status)) continue;
        int signal = WSTOPSIG(status);
        if (status >> 16) {  // a clone or exec event
            ptrace(PTRACE_CONT, thread, 0, 0);
            continue;
        }
        if (signal == SIGTRAP) {
            struct user_regs_struct registers;
            if (ptrace(PTRACE_GETREGS, thread, 0, &registers) != 0) continue;  // the thread is gone
            uint64_t at = registers.rip - 1 - base;
            uint64_t *found = bsearch(&at, addresses, count, sizeof *addresses, compare);
            if (found) {
                size_t i = found - addresses;
                if (!entered[i]) {
                    long word = ptrace(PTRACE_PEEKTEXT, thread, base + at, 0);
                    ptrace(PTRACE_POKETEXT, thread, base + at, (word & ~0xffL) | original[i]);
                    entered[i] = 1;
                    fprintf(hits, "%lx\n", (unsigned long)at);
                    fflush(hits);
                }
                // Another thread that stopped on the same byte before it was put back also
                // resumes on the function's first instruction.
                registers.rip = base + at;
                ptrace(PTRACE_SETREGS, thread, 0, &registers);
                ptrace(PTRACE_CONT, thread, 0, 0);
                continue;
            }
        }
        // A new thread's first stop is swallowed; any other signal is delivered.
        ptrace(PTRACE_CONT, thread, 0, signal == SIGSTOP ? 0 : signal);
    }
    fclose(hits);
    return 0;
}
