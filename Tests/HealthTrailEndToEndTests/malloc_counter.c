// malloc_counter: an LD_PRELOAD library that counts heap allocations, for AllocationGuardTests.
//
// It counts calls to malloc, calloc, realloc, posix_memalign, aligned_alloc and memalign (Swift's
// runtime allocates through malloc and, for over-aligned objects, aligned_alloc/posix_memalign),
// and passes each one on to glibc's own allocator through its __libc_* entry points. Those are
// used rather than dlsym(RTLD_NEXT, ...) because dlsym itself calls calloc, which would recurse
// into an interposer that does not know its target yet. free is not interposed: the memory comes
// from glibc's allocator either way.
//
// At exit (a destructor) it writes one line to the file named by $MALLOC_COUNTER_OUT:
//   total=N separate=N malloc=N calloc=N realloc=N posix_memalign=N aligned_alloc=N memalign=N
// with open/write only, so that reporting allocates nothing. Without the variable it writes
// nothing. The counters are atomic: the CLI decodes and writes on several threads.
//
// `separate` counts the calls made directly from the code of the shared libraries whose path
// contains $MALLOC_COUNTER_SEPARATE (e.g. "libxml2"), told by the caller's return address. The
// guard uses it to keep a library's own per-element allocations (which the benchmark's floor
// makes too, and which HealthTrail's code cannot remove) apart from HealthTrail's. Allocations
// a library makes through another library (Swift's runtime, say) are not "separate".
//
// Not part of the test target (Package.swift excludes it): the tests compile it with
// `cc -shared -fPIC -O2` into a temporary folder. glibc only (Linux).

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

enum { kMalloc, kCalloc, kRealloc, kPosixMemalign, kAlignedAlloc, kMemalign, kKinds };
static const char *const kNames[kKinds] = {
    "malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc", "memalign",
};
static uint64_t counts[kKinds];
static uint64_t separate;

// Executable segments of the libraries named by $MALLOC_COUNTER_SEPARATE, found once at load
// time (before any thread exists; read-only afterwards).
enum { kMaxRanges = 16 };
static uintptr_t rangeStart[kMaxRanges], rangeEnd[kMaxRanges];
static int rangeCount;

static int findRanges(struct dl_phdr_info *info, size_t size, void *needle) {
    (void)size;
    if (info->dlpi_name == NULL || strstr(info->dlpi_name, (const char *)needle) == NULL) return 0;
    for (int i = 0; i < info->dlpi_phnum && rangeCount < kMaxRanges; i++) {
        const ElfW(Phdr) *segment = &info->dlpi_phdr[i];
        if (segment->p_type != PT_LOAD || (segment->p_flags & PF_X) == 0) continue;
        rangeStart[rangeCount] = info->dlpi_addr + segment->p_vaddr;
        rangeEnd[rangeCount] = rangeStart[rangeCount] + segment->p_memsz;
        rangeCount++;
    }
    return 0;
}

// Runs after every library the program links was mapped (the loader maps them all first);
// dl_iterate_phdr does not allocate.
__attribute__((constructor)) static void findSeparateLibraries(void) {
    const char *needle = getenv("MALLOC_COUNTER_SEPARATE");
    if (needle != NULL && *needle != '\0') dl_iterate_phdr(findRanges, (void *)needle);
}

static inline void count(int kind, void *caller) {
    __atomic_fetch_add(&counts[kind], 1, __ATOMIC_RELAXED);
    uintptr_t address = (uintptr_t)caller;
    for (int i = 0; i < rangeCount; i++) {
        if (address >= rangeStart[i] && address < rangeEnd[i]) {
            __atomic_fetch_add(&separate, 1, __ATOMIC_RELAXED);
            return;
        }
    }
}

#define CALLER __builtin_return_address(0)

void *malloc(size_t size) {
    count(kMalloc, CALLER);
    return __libc_malloc(size);
}

void *calloc(size_t n, size_t size) {
    count(kCalloc, CALLER);
    return __libc_calloc(n, size);
}

void *realloc(void *pointer, size_t size) {
    count(kRealloc, CALLER);
    return __libc_realloc(pointer, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    count(kPosixMemalign, CALLER);
    // posix_memalign's contract: a power of two that is a multiple of sizeof(void *).
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}

void *aligned_alloc(size_t alignment, size_t size) {
    count(kAlignedAlloc, CALLER);
    return __libc_memalign(alignment, size);
}

void *memalign(size_t alignment, size_t size) {
    count(kMemalign, CALLER);
    return __libc_memalign(alignment, size);
}

// Appends "name=value" to a fixed buffer without stdio (snprintf may allocate for locales).
static size_t append(char *buffer, size_t used, size_t capacity, const char *name, uint64_t value) {
    char digits[24];
    size_t n = 0;
    do { digits[n++] = (char)('0' + value % 10); value /= 10; } while (value != 0);
    size_t length = strlen(name);
    if (used + length + n + 2 >= capacity) return used;
    if (used != 0) buffer[used++] = ' ';
    memcpy(buffer + used, name, length);
    used += length;
    buffer[used++] = '=';
    while (n != 0) buffer[used++] = digits[--n];
    return used;
}

__attribute__((destructor)) static void report(void) {
    const char *path = getenv("MALLOC_COUNTER_OUT");
    if (path == NULL || *path == '\0') return;
    uint64_t snapshot[kKinds], total = 0;
    for (int kind = 0; kind < kKinds; kind++) {
        snapshot[kind] = __atomic_load_n(&counts[kind], __ATOMIC_RELAXED);
        total += snapshot[kind];
    }
    char line[512];
    size_t used = append(line, 0, sizeof line, "total", total);
    used = append(line, used, sizeof line, "separate", __atomic_load_n(&separate, __ATOMIC_RELAXED));
    for (int kind = 0; kind < kKinds; kind++) used = append(line, used, sizeof line, kNames[kind], snapshot[kind]);
    line[used++] = '\n';
    // O_APPEND: a process the CLI might start inherits the variable; each adds its own line.
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (fd < 0) return;
    ssize_t ignored = write(fd, line, used);
    (void)ignored;
    close(fd);
}
