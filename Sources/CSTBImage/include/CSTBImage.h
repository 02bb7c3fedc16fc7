#ifndef VISAGE_CSTBIMAGE_H
#define VISAGE_CSTBIMAGE_H

// stb_image, the decoder MediaPipe's Python package reads files with
// (`mp.Image.create_from_file`), compiled into this module from the system's header when the
// build finds one (Debian's libstb-dev: /usr/include/stb/stb_image.h). Without it the module
// still builds, and visage_stb_available() says 0.

/// 1 when stb_image was compiled in, 0 when the build found no header.
int visage_stb_available(void);

/// The size and channel count the header of an image held in memory declares, as stb_image
/// reads them, without decoding the pixels. Returns 1, or 0 with stb_image's reason in *reason.
int visage_stb_info(const unsigned char *bytes, int count, int *width, int *height, int *channels,
                    const char **reason);

/// The pixels of an image held in memory, decoded by stb_image with the file's own channel
/// count (1 gray, 2 gray and alpha, 3 RGB, 4 RGBA; 16-bit samples cut to 8): rows top to
/// bottom, channels interleaved, freed with visage_stb_free. NULL when it cannot be decoded,
/// with stb_image's reason in *reason (a static string).
unsigned char *visage_stb_load(const unsigned char *bytes, int count, int *width, int *height, int *channels,
                               const char **reason);

/// Frees what visage_stb_load returned.
void visage_stb_free(void *pixels);

#endif
