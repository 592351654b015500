#define _GNU_SOURCE
#include "CStream.h"

#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

struct prefixed {
  unsigned char *bytes;
  size_t count;
  size_t position;
  int descriptor;
  int ended;
};

static ssize_t prefixed_read(void *cookie, char *buffer, size_t size) {
  struct prefixed *state = cookie;
  if (state->position < state->count) {
    size_t taken = state->count - state->position;
    if (taken > size) taken = size;
    memcpy(buffer, state->bytes + state->position, taken);
    state->position += taken;
    return (ssize_t)taken;
  }
  if (state->ended) return 0;
  return read(state->descriptor, buffer, size);
}

static int prefixed_close(void *cookie) {
  struct prefixed *state = cookie;
  free(state->bytes);
  free(state);
  return 0;
}

#if defined(__APPLE__)
static int prefixed_read_int(void *cookie, char *buffer, int size) {
  return (int)prefixed_read(cookie, buffer, (size_t)size);
}
#endif

FILE *cstream_open_prefixed(const unsigned char *prefix, size_t count, int descriptor, int ended) {
  struct prefixed *state = calloc(1, sizeof *state);
  if (state == NULL) return NULL;
  state->bytes = malloc(count > 0 ? count : 1);
  if (state->bytes == NULL) {
    free(state);
    return NULL;
  }
  if (count > 0) memcpy(state->bytes, prefix, count);
  state->count = count;
  state->descriptor = descriptor;
  state->ended = ended;
#if defined(__APPLE__)
  FILE *file = funopen(state, prefixed_read_int, NULL, NULL, prefixed_close);
#else
  cookie_io_functions_t functions = {.read = prefixed_read, .close = prefixed_close};
  FILE *file = fopencookie(state, "rb", functions);
#endif
  if (file == NULL) prefixed_close(state);
  return file;
}
