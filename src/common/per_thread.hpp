#pragma once
// State the library keeps per thread, declared once for both builds.
//
// Preloaded (the normal build): thread-local, so that MPI_THREAD_MULTIPLE
// programs are safe, in the initial-exec model, which a library read on
// every MPI call can afford.
//
// SimGrid/SMPI (HARMONIZE_SMPI): simulated ranks take turns on one thread,
// so thread-local state would be every rank's at once; SMPI privatizes each
// rank's globals instead (its data segment under smpi/privatization:mmap, a
// copy of the program under dlopen, where initial-exec TLS in every copy
// also exhausted glibc's static TLS block at ~400 ranks): a plain global is
// one per rank (docs/scaling.md).
#ifdef HARMONIZE_SMPI
#define HARMONIZE_PER_THREAD
#define HARMONIZE_PER_THREAD_STATIC static  // a function's
#else
#define HARMONIZE_PER_THREAD [[gnu::tls_model("initial-exec")]] thread_local
#define HARMONIZE_PER_THREAD_STATIC thread_local  // a function's
#endif
