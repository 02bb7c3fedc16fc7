// libjpeg (libjpeg-turbo, libjpeg62 API) glue for VisageImageIO: whole decodes in C, so
// libjpeg's longjmp-based error handling never crosses a Swift frame.
//
// libjpeg reports errors through `error_exit`, which must not return; ours longjmps back to a
// setjmp in the C function that called libjpeg. Swift cannot call setjmp, so every libjpeg call
// happens inside the functions below, each of which turns a failure into a status code plus
// libjpeg's message copied into a caller buffer. The function that calls setjmp is `noinline`
// so its frame (the longjmp target) is never merged into a Swift caller.
//
// Decoding is two-phase: call `visage_jpeg_decode` with `rgb == NULL` to read the size from the
// header, let the caller check it and allocate `width * height * 3` bytes, then call again.
#ifndef VISAGE_CJPEG_SHIM_H
#define VISAGE_CJPEG_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <setjmp.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

/// Outcomes of `visage_jpeg_decode`.
enum {
  VISAGE_JPEG_OK = 0,
  /// libjpeg refused the data, or found its entropy-coded data damaged.
  VISAGE_JPEG_INVALID = 1,
  /// The data ended before the image did.
  VISAGE_JPEG_TRUNCATED = 2,
  /// A valid file this glue does not convert (a colour space other than gray, YCbCr, RGB,
  /// CMYK or YCCK), or one with more scans than `VISAGE_JPEG_MAX_SCANS`.
  VISAGE_JPEG_UNSUPPORTED = 3,
  /// libjpeg could not get memory.
  VISAGE_JPEG_OUT_OF_MEMORY = 4,
};

/// Progressive files may hold many scans, each a pass over the whole image; a hostile file can
/// make decoding take very long with thousands of tiny scans. Real encoders write about ten.
#define VISAGE_JPEG_MAX_SCANS 500

/// libjpeg's state plus ours. It lives in the caller of the setjmp function, so its fields keep
/// their values across the longjmp.
typedef struct {
  struct jpeg_decompress_struct cinfo;
  struct jpeg_error_mgr errors;
  struct jpeg_progress_mgr progress;
  jmp_buf jump;
  int status;
  char message[JMSG_LENGTH_MAX];
} visage_jpeg_state;

static inline visage_jpeg_state *visage_jpeg_state_of(j_common_ptr cinfo) {
  return (visage_jpeg_state *)((char *)cinfo - offsetof(visage_jpeg_state, cinfo));
}

/// Records why decoding stops and jumps back to the setjmp.
static inline void visage_jpeg_fail(j_common_ptr cinfo, int status, const char *text) {
  visage_jpeg_state *state = visage_jpeg_state_of(cinfo);
  state->status = status;
  if (text != NULL) {
    snprintf(state->message, sizeof state->message, "%s", text);
  } else {
    cinfo->err->format_message(cinfo, state->message);
  }
  longjmp(state->jump, 1);
}

/// libjpeg's `error_exit`.
static inline void visage_jpeg_on_error(j_common_ptr cinfo) {
  int out_of_memory = cinfo->err->msg_code == JERR_OUT_OF_MEMORY;
  visage_jpeg_fail(cinfo, out_of_memory ? VISAGE_JPEG_OUT_OF_MEMORY : VISAGE_JPEG_INVALID, NULL);
}

/// libjpeg's `emit_message`: trace messages (level >= 0) are dropped. Warnings (level -1) that
/// mean pixels are missing or wrong become errors; libjpeg would otherwise fill the rest of the
/// image with gray and carry on. Warnings about metadata or junk between segments are ignored.
static inline void visage_jpeg_on_message(j_common_ptr cinfo, int level) {
  if (level >= 0) return;
  switch (cinfo->err->msg_code) {
  case JWRN_JPEG_EOF:
    visage_jpeg_fail(cinfo, VISAGE_JPEG_TRUNCATED, NULL);
    break;
  case JWRN_HIT_MARKER:
  case JWRN_HUFF_BAD_CODE:
  case JWRN_ARITH_BAD_CODE:
  case JWRN_MUST_RESYNC:
  case JWRN_BOGUS_PROGRESSION:
  case JWRN_NOT_SEQUENTIAL:
    visage_jpeg_fail(cinfo, VISAGE_JPEG_INVALID, NULL);
    break;
  default:  // JWRN_EXTRANEOUS_DATA, JWRN_ADOBE_XFORM, JWRN_JFIF_MAJOR, JWRN_BOGUS_ICC, ...
    break;
  }
}

/// libjpeg's progress callback, used only to bound the number of scans.
static inline void visage_jpeg_on_progress(j_common_ptr cinfo) {
  j_decompress_ptr decompress = (j_decompress_ptr)cinfo;
  if (decompress->input_scan_number > VISAGE_JPEG_MAX_SCANS) {
    visage_jpeg_fail(cinfo, VISAGE_JPEG_UNSUPPORTED, "too many progressive scans");
  }
}

/// CMYK to RGB without colour management. Files with an Adobe APP14 marker (Photoshop, libjpeg
/// and Pillow write one) store inverted samples: 255 means no ink. Then R = C * K / 255, and
/// likewise G from M and B from Y, rounded to nearest. Without the marker the samples are
/// plain ink amounts and R = (255 - C) * (255 - K) / 255.
static inline void visage_jpeg_cmyk_to_rgb(const JSAMPLE *cmyk, unsigned char *rgb,
                                           JDIMENSION width, int inverted) {
  for (JDIMENSION x = 0; x < width; x++) {
    unsigned c = cmyk[4 * x], m = cmyk[4 * x + 1], y = cmyk[4 * x + 2], k = cmyk[4 * x + 3];
    if (!inverted) {
      c = 255 - c;
      m = 255 - m;
      y = 255 - y;
      k = 255 - k;
    }
    rgb[3 * x] = (unsigned char)((c * k + 127) / 255);
    rgb[3 * x + 1] = (unsigned char)((m * k + 127) / 255);
    rgb[3 * x + 2] = (unsigned char)((y * k + 127) / 255);
  }
}

/// The part of `visage_jpeg_decode` that runs under setjmp.
static inline __attribute__((noinline)) int visage_jpeg_decode_guarded(
    visage_jpeg_state *state, const unsigned char *data, size_t size, uint32_t *width,
    uint32_t *height, unsigned char *rgb) {
  j_decompress_ptr cinfo = &state->cinfo;
  if (setjmp(state->jump)) return state->status;

  jpeg_create_decompress(cinfo);
  cinfo->progress = &state->progress;
  jpeg_mem_src(cinfo, data, (unsigned long)size);
  jpeg_read_header(cinfo, TRUE);
  if (rgb == NULL) {
    *width = cinfo->image_width;
    *height = cinfo->image_height;
    return VISAGE_JPEG_OK;
  }
  if (cinfo->image_width != *width || cinfo->image_height != *height) {
    visage_jpeg_fail((j_common_ptr)cinfo, VISAGE_JPEG_INVALID,
                     "image size differs from the header read before");
  }

  // Gray, YCbCr and RGB files: libjpeg converts to RGB. CMYK and YCCK: libjpeg gives CMYK
  // (converting YCCK), which we convert below.
  int cmyk = 0;
  switch (cinfo->jpeg_color_space) {
  case JCS_GRAYSCALE:
  case JCS_YCbCr:
  case JCS_RGB:
    cinfo->out_color_space = JCS_RGB;
    break;
  case JCS_CMYK:
  case JCS_YCCK:
    cinfo->out_color_space = JCS_CMYK;
    cmyk = 1;
    break;
  default:
    visage_jpeg_fail((j_common_ptr)cinfo, VISAGE_JPEG_UNSUPPORTED,
                     "unsupported colour space (only gray, YCbCr, RGB, CMYK and YCCK are read)");
  }

  jpeg_start_decompress(cinfo);
  if (cinfo->output_width != *width || cinfo->output_height != *height ||
      cinfo->output_components != (cmyk ? 4 : 3)) {
    visage_jpeg_fail((j_common_ptr)cinfo, VISAGE_JPEG_INVALID, "unexpected output layout");
  }
  JSAMPARRAY cmyk_row = NULL;
  if (cmyk) {
    cmyk_row = (*cinfo->mem->alloc_sarray)((j_common_ptr)cinfo, JPOOL_IMAGE, *width * 4, 1);
  }
  while (cinfo->output_scanline < cinfo->output_height) {
    unsigned char *out = rgb + (size_t)cinfo->output_scanline * *width * 3;
    if (cmyk) {
      jpeg_read_scanlines(cinfo, cmyk_row, 1);
      visage_jpeg_cmyk_to_rgb(cmyk_row[0], out, *width, cinfo->saw_Adobe_marker);
    } else {
      JSAMPROW row = out;
      jpeg_read_scanlines(cinfo, &row, 1);
    }
  }
  jpeg_finish_decompress(cinfo);  // reads on to EOI, so a file cut after its last scan fails
  return VISAGE_JPEG_OK;
}

/// Decodes a JPEG held in memory to 8-bit RGB.
///
/// With `rgb == NULL`, reads only the header and stores the size in `*width` and `*height`.
/// Otherwise `*width` and `*height` must hold that size and `rgb` must point to
/// `width * height * 3` bytes, which receive the pixels, rows top to bottom.
/// Returns a `VISAGE_JPEG_*` status; on failure `message` receives libjpeg's explanation.
static inline int visage_jpeg_decode(const unsigned char *data, size_t size, uint32_t *width,
                                     uint32_t *height, unsigned char *rgb, char *message,
                                     size_t message_capacity) {
  visage_jpeg_state state;
  memset(&state, 0, sizeof state);
  state.cinfo.err = jpeg_std_error(&state.errors);
  state.errors.error_exit = visage_jpeg_on_error;
  state.errors.emit_message = visage_jpeg_on_message;
  state.progress.progress_monitor = visage_jpeg_on_progress;
  int status = visage_jpeg_decode_guarded(&state, data, size, width, height, rgb);
  jpeg_destroy_decompress(&state.cinfo);
  if (status != VISAGE_JPEG_OK && message != NULL && message_capacity > 0) {
    snprintf(message, message_capacity, "%s", state.message);
  }
  return status;
}

#endif
