#include "CSTBImage.h"

#include <stddef.h>
#include <stdlib.h>

#if __has_include(<stb/stb_image.h>)
// Static, so that a process holding another copy of stb_image (MediaPipe's libmediapipe.so
// beside Visage's in one Python) keeps the two apart. Memory only: Visage reads the file.
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STBI_NO_STDIO
#define STBI_FAILURE_USERMSG
// Visage refuses larger sides anyway (MPImage.maximumDimension); stb_image's own bound is 2^24.
#define STBI_MAX_DIMENSIONS (1 << 15)
// Zeroed: a truncated progressive JPEG leaves coefficients stb_image never writes, which it
// would otherwise read uninitialised; zero is what MediaPipe's build gives for them.
#define STBI_MALLOC(size) calloc(1, size)
#define STBI_REALLOC(pointer, size) realloc(pointer, size)
#define STBI_FREE(pointer) free(pointer)
// Its thread-locals (the failure reason, per-thread flags) need this file compiled as
// position-independent code to sit in a shared object: Tools/release/build passes -fPIC.
// STB_IMAGE_STATIC leaves the entry points Visage does not call unused: not its warnings.
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunused-function"
#include <stb/stb_image.h>
#pragma clang diagnostic pop

int visage_stb_available(void) { return 1; }

int visage_stb_info(const unsigned char *bytes, int count, int *width, int *height, int *channels,
                    const char **reason) {
  if (stbi_info_from_memory(bytes, count, width, height, channels)) return 1;
  *reason = stbi_failure_reason();
  return 0;
}

unsigned char *visage_stb_load(const unsigned char *bytes, int count, int *width, int *height, int *channels,
                               const char **reason) {
  unsigned char *pixels = stbi_load_from_memory(bytes, count, width, height, channels, 0);
  if (pixels == NULL) *reason = stbi_failure_reason();
  return pixels;
}

void visage_stb_free(void *pixels) { stbi_image_free(pixels); }

#else

int visage_stb_available(void) { return 0; }

int visage_stb_info(const unsigned char *bytes, int count, int *width, int *height, int *channels,
                    const char **reason) {
  (void)bytes, (void)count, (void)width, (void)height, (void)channels;
  *reason = "stb_image was not compiled in (no <stb/stb_image.h> when Visage was built)";
  return 0;
}

unsigned char *visage_stb_load(const unsigned char *bytes, int count, int *width, int *height, int *channels,
                               const char **reason) {
  (void)bytes, (void)count, (void)width, (void)height, (void)channels;
  *reason = "stb_image was not compiled in (no <stb/stb_image.h> when Visage was built)";
  return NULL;
}

void visage_stb_free(void *pixels) { (void)pixels; }

#endif
