// A C stream (FILE *) that reads bytes already taken from a descriptor,
// then the rest of the descriptor: standard input looked at before a
// reader gets it (its first bytes tell btsnoop from pcap, or a capture
// from a payload), since a pipe cannot be read twice. In C because the
// C library's fopencookie needs _GNU_SOURCE, which Swift's Glibc module
// does not define.
#ifndef CSTREAM_H
#define CSTREAM_H

#include <stddef.h>
#include <stdio.h>

// Opens a stream that reads a copy of `prefix` (`count` bytes), then
// `descriptor` from where it is, unless `ended` (the descriptor is
// known to be at its end). An interrupted read (EINTR: Ctrl-C) is passed
// on as an error, so that a reader of an idle pipe stops. NULL when no
// stream can be made. fclose frees it; the descriptor stays open.
FILE *cstream_open_prefixed(const unsigned char *prefix, size_t count, int descriptor, int ended);

#endif
