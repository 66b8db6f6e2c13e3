#pragma once
// Which operating-system interfaces this build of the platform facade uses. Private to
// src/platform/: the rest of fdbench asks platform::uses_linux_interfaces() instead.

// FDBENCH_PORTABLE (a CMake option) builds only the portable POSIX paths even on Linux, so
// the code macOS and the BSDs run is built and tested on Linux too.
#if defined(__linux__) && !defined(FDBENCH_PORTABLE)
#define FDBENCH_LINUX 1
#endif
#if defined(__APPLE__) || defined(__FreeBSD__) || defined(__NetBSD__) || defined(__OpenBSD__) || \
    defined(__DragonFly__)
#define FDBENCH_BSD 1
#endif
#if defined(FDBENCH_LINUX) || defined(__FreeBSD__)
#define FDBENCH_HAVE_EVENTFD 1
#endif
