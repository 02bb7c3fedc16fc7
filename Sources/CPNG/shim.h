// libpng glue for VisageImageIO: whole decodes and encodes in C, so libpng's longjmp-based
// error handling never crosses a Swift frame.
//
// libpng reports errors by calling an error function that must not return; we longjmp from it
// back to a setjmp in the C function that called libpng. Swift cannot call setjmp, so every
// libpng call happens inside the functions below, each of which turns a failure into a status
// code plus libpng's message copied into a caller buffer. The functions that call setjmp are
// `noinline` so their frame (the longjmp target) is never merged into a Swift caller.
//
// Decoding is two-phase: call `visage_png_decode` with `rgb == NULL` to read the size from the
// header, let the caller check it and allocate `width * height * 3` bytes, then call again.
#ifndef VISAGE_CPNG_SHIM_H
#define VISAGE_CPNG_SHIM_H

#include <png.h>
#include <libdeflate.h>  // VisageImageIO's own path for common PNGs (DirectPNG.swift)
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Outcomes of the functions below.
enum {
  VISAGE_PNG_OK = 0,
  /// libpng refused the data (bad signature, CRC, zlib stream, IHDR, ...).
  VISAGE_PNG_INVALID = 1,
  /// The data ended before the image did.
  VISAGE_PNG_TRUNCATED = 2,
  /// There was not enough memory for libpng's structures or the encoded output.
  VISAGE_PNG_OUT_OF_MEMORY = 4,
};

/// State shared with libpng's callbacks. It lives in the caller of the setjmp function, so its
/// fields keep their values across the longjmp.
typedef struct {
  png_structp png;
  png_infop info;
  const unsigned char *data;  // decoding: the encoded bytes
  size_t size;
  size_t offset;
  unsigned char *output;      // encoding: a malloc'd buffer that grows
  size_t output_size;
  size_t capacity;
  int status;
  char *message;
  size_t message_capacity;
} visage_png_state;

static inline void visage_png_set_message(visage_png_state *state, const char *text) {
  if (state->message != NULL && state->message_capacity > 0) {
    snprintf(state->message, state->message_capacity, "%s", text);
  }
}

/// libpng's error callback: record the message and jump back to the setjmp.
static inline void visage_png_on_error(png_structp png, png_const_charp text) {
  visage_png_state *state = (visage_png_state *)png_get_error_ptr(png);
  if (state->status == VISAGE_PNG_OK) state->status = VISAGE_PNG_INVALID;
  visage_png_set_message(state, text);
  png_longjmp(png, 1);
}

/// libpng's warning callback: warnings (bad ancillary chunks, odd ICC profiles) are ignored,
/// as the pixels are still good.
static inline void visage_png_on_warning(png_structp png, png_const_charp text) {
  (void)png;
  (void)text;
}

/// Reads from the in-memory data; running out is a truncated file.
static inline void visage_png_read_bytes(png_structp png, png_bytep out, size_t count) {
  visage_png_state *state = (visage_png_state *)png_get_io_ptr(png);
  if (count > state->size - state->offset) {
    state->status = VISAGE_PNG_TRUNCATED;
    png_error(png, "unexpected end of data");
  }
  memcpy(out, state->data + state->offset, count);
  state->offset += count;
}

/// Appends to the growing output buffer.
static inline void visage_png_write_bytes(png_structp png, png_bytep bytes, size_t count) {
  visage_png_state *state = (visage_png_state *)png_get_io_ptr(png);
  if (count > state->capacity - state->output_size) {
    size_t capacity = state->capacity < 4096 ? 4096 : state->capacity;
    while (capacity - state->output_size < count) capacity *= 2;
    unsigned char *grown = (unsigned char *)realloc(state->output, capacity);
    if (grown == NULL) {
      state->status = VISAGE_PNG_OUT_OF_MEMORY;
      png_error(png, "out of memory");
    }
    state->output = grown;
    state->capacity = capacity;
  }
  memcpy(state->output + state->output_size, bytes, count);
  state->output_size += count;
}

static inline void visage_png_flush(png_structp png) { (void)png; }

/// The part of `visage_png_decode` that runs under setjmp.
static inline __attribute__((noinline)) int visage_png_decode_guarded(
    visage_png_state *state, uint32_t *width, uint32_t *height, unsigned char *rgb) {
  if (setjmp(png_jmpbuf(state->png))) return state->status;

  // Let any size through the header so the caller can report it; it checks before allocating.
  png_set_user_limits(state->png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
  png_set_read_fn(state->png, state, visage_png_read_bytes);
  png_read_info(state->png, state->info);
  png_uint_32 w = png_get_image_width(state->png, state->info);
  png_uint_32 h = png_get_image_height(state->png, state->info);
  if (rgb == NULL) {
    *width = w;
    *height = h;
    return VISAGE_PNG_OK;
  }
  if (w != *width || h != *height) png_error(state->png, "image size differs from the header read before");

  // Every layout to 8-bit RGB: palette, low-bit gray and tRNS expanded; 16-bit samples scaled
  // (rounded, not truncated); alpha dropped, not composited; gray replicated. No gamma or ICC
  // handling: samples are used as stored.
  png_set_expand(state->png);
  png_set_scale_16(state->png);
  png_set_strip_alpha(state->png);
  png_set_gray_to_rgb(state->png);
  int passes = png_set_interlace_handling(state->png);
  png_read_update_info(state->png, state->info);
  if (png_get_rowbytes(state->png, state->info) != (size_t)w * 3) {
    png_error(state->png, "unexpected row layout after conversion to 8-bit RGB");
  }
  for (int pass = 0; pass < passes; pass++) {
    for (png_uint_32 y = 0; y < h; y++) png_read_row(state->png, rgb + (size_t)y * w * 3, NULL);
  }
  png_read_end(state->png, NULL);  // checks the rest of the file, up to IEND
  return VISAGE_PNG_OK;
}

/// Decodes a PNG held in memory to 8-bit RGB.
///
/// With `rgb == NULL`, reads only the header and stores the size in `*width` and `*height`.
/// Otherwise `*width` and `*height` must hold that size and `rgb` must point to
/// `width * height * 3` bytes, which receive the pixels, rows top to bottom.
/// Returns a `VISAGE_PNG_*` status; on failure `message` receives libpng's explanation.
static inline int visage_png_decode(const unsigned char *data, size_t size, uint32_t *width,
                                    uint32_t *height, unsigned char *rgb, char *message,
                                    size_t message_capacity) {
  visage_png_state state;
  memset(&state, 0, sizeof state);
  state.data = data;
  state.size = size;
  state.message = message;
  state.message_capacity = message_capacity;
  state.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &state, visage_png_on_error,
                                     visage_png_on_warning);
  if (state.png != NULL) state.info = png_create_info_struct(state.png);
  if (state.info == NULL) {
    png_destroy_read_struct(&state.png, NULL, NULL);
    visage_png_set_message(&state, "out of memory");
    return VISAGE_PNG_OUT_OF_MEMORY;
  }
  int status = visage_png_decode_guarded(&state, width, height, rgb);
  png_destroy_read_struct(&state.png, &state.info, NULL);
  return status;
}

/// The part of `visage_png_encode` that runs under setjmp.
static inline __attribute__((noinline)) int visage_png_encode_guarded(
    visage_png_state *state, const unsigned char *rgb, uint32_t width, uint32_t height) {
  if (setjmp(png_jmpbuf(state->png))) return state->status;

  png_set_write_fn(state->png, state, visage_png_write_bytes, visage_png_flush);
  png_set_IHDR(state->png, state->info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(state->png, state->info);
  for (uint32_t y = 0; y < height; y++) png_write_row(state->png, rgb + (size_t)y * width * 3);
  png_write_end(state->png, NULL);
  return VISAGE_PNG_OK;
}

/// Encodes `width * height` 8-bit RGB pixels as a non-interlaced 8-bit RGB PNG.
///
/// On success `*output` is a `malloc`'d buffer of `*output_size` bytes that the caller must
/// `free`. Returns a `VISAGE_PNG_*` status; on failure `message` receives libpng's explanation
/// and `*output` is NULL.
static inline int visage_png_encode(const unsigned char *rgb, uint32_t width, uint32_t height,
                                    unsigned char **output, size_t *output_size, char *message,
                                    size_t message_capacity) {
  visage_png_state state;
  memset(&state, 0, sizeof state);
  state.message = message;
  state.message_capacity = message_capacity;
  *output = NULL;
  *output_size = 0;
  state.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &state, visage_png_on_error,
                                      visage_png_on_warning);
  if (state.png != NULL) state.info = png_create_info_struct(state.png);
  if (state.info == NULL) {
    png_destroy_write_struct(&state.png, NULL);
    visage_png_set_message(&state, "out of memory");
    return VISAGE_PNG_OUT_OF_MEMORY;
  }
  int status = visage_png_encode_guarded(&state, rgb, width, height);
  png_destroy_write_struct(&state.png, &state.info);
  if (status != VISAGE_PNG_OK) {
    free(state.output);
    return status;
  }
  *output = state.output;
  *output_size = state.output_size;
  return VISAGE_PNG_OK;
}

#endif
