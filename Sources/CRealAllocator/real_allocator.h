/* The C library's allocator under the library's own wrappers (seek.h section 6, "Memory
 * exhaustion"; Sources/FastPixSeek/AllocatorWraps.swift). The Makefile links
 * libfastpixseek.so with --wrap=malloc (and calloc, realloc, posix_memalign, operator new):
 * every call to malloc from the objects linked into the library -- the Swift runtime, the
 * Swift code -- goes to __wrap_malloc, and __real_malloc is the C library's malloc. Weak, so
 * that a link without the flags (swift test, fpx-seek), which never calls the wrappers,
 * needs no definition. FFmpeg's own allocations (in its shared libraries) are not wrapped. */
#ifndef FPX_REAL_ALLOCATOR_H
#define FPX_REAL_ALLOCATOR_H
#include <stddef.h>

extern void *__real_malloc(size_t size) __attribute__((weak));
extern void *__real_calloc(size_t count, size_t size) __attribute__((weak));
extern void *__real_realloc(void *ptr, size_t size) __attribute__((weak));
extern int __real_posix_memalign(void **out, size_t alignment, size_t size) __attribute__((weak));

static inline void *fpx_real_malloc(size_t size) { return __real_malloc(size); }
static inline void *fpx_real_calloc(size_t count, size_t size) { return __real_calloc(count, size); }
static inline void *fpx_real_realloc(void *ptr, size_t size) { return __real_realloc(ptr, size); }
static inline int fpx_real_posix_memalign(void **out, size_t alignment, size_t size)
{
    return __real_posix_memalign(out, alignment, size);
}
#endif
