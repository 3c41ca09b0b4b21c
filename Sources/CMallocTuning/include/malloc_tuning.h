// glibc's mallopt(3), which Swift's Glibc module does not export.
#include <malloc.h>

static inline void propd_keep_freed_heap(int trim_threshold, int top_pad) {
#ifdef M_TRIM_THRESHOLD
    mallopt(M_TRIM_THRESHOLD, trim_threshold);
    mallopt(M_TOP_PAD, top_pad);
#endif
}
