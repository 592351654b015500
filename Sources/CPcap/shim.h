#include <pcap/pcap.h>
#if defined(__GLIBC__)
// __fsetlocking: a capture file's FILE is read by one thread only.
#include <stdio_ext.h>
#endif
