/*
 * Visage's C interface: the contract between the engine's shared object (libvisage.so, built
 * from Python/Sources/VisageC) and whoever loads it: the `visage` Python package through
 * ctypes, or a C program. Swift's definitions are compiled against these prototypes
 * (Exports.swift's `HeaderAgreement`), and Python's declarations are held to this file by
 * Python/tests/test_c_header.py. Change them together, and raise VISAGE_ABI_VERSION.
 *
 * Every call that can fail returns a visage_status and, on failure, stores a message in
 * `*error`, which the caller frees with visage_free. Handles are opaque: a task from
 * visage_task_create, released by visage_task_close; a result from visage_task_run or the
 * live-stream callback, released by visage_result_free. Nothing keeps a pointer it was given
 * past the call.
 */
#ifndef VISAGE_H
#define VISAGE_H

#include <stdint.h>

#if !defined(__clang__)
#define _Nonnull
#define _Nullable
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this interface: 5. visage_abi_version returns it; the Python package
 * refuses a library of another. */
#define VISAGE_ABI_VERSION 5

/* What a call returns; the Python package raises the exception named. */
typedef enum visage_status : int32_t {
  VISAGE_OK = 0,
  VISAGE_INVALID_ARGUMENT = 1, /* ValueError: a bad argument or option, a call the task's mode refuses */
  VISAGE_ENGINE_FAILED = 2,    /* RuntimeError: a model or image the engine cannot use */
  VISAGE_FILE_NOT_FOUND = 3,   /* FileNotFoundError */
} visage_status;

/* MediaPipe's running modes; a call's mode must be its task's. */
typedef enum visage_running_mode : int32_t {
  VISAGE_IMAGE = 0,
  VISAGE_VIDEO = 1,
  VISAGE_LIVE_STREAM = 2,
} visage_running_mode;

/* An image's pixel format, its bytes a pixel: MediaPipe's GRAY8, SRGB and SRGBA. */
typedef enum visage_image_format : int32_t {
  VISAGE_GRAY8 = 1,
  VISAGE_SRGB = 3,
  VISAGE_SRGBA = 4,
} visage_image_format;

/* How visage_image_decode reads a file. */
typedef enum visage_decoder : int32_t {
  /* As MediaPipe 1.2.2's Python Image.create_from_file: stb_image, its formats, Exif as
   * easyexif reads it (without stb_image in the build, as VISAGE_DECODER_STANDARD). */
  VISAGE_DECODER_MEDIAPIPE = 0,
  /* PNG and JPEG with libpng and libjpeg-turbo (Pillow's pixels), as SRGB, a JPEG turned
   * upright by its Exif orientation. */
  VISAGE_DECODER_STANDARD = 1,
} visage_decoder;

/* Pixels in memory: `height` rows `row_bytes` apart of `width` pixels in `format`, within
 * `byte_count` bytes from `pixels`, stored turned by `rotation_degrees` (a multiple of 90, as
 * MediaPipe's ImageProcessingOptions say). */
typedef struct visage_image {
  const void *_Nullable pixels;
  int64_t byte_count;
  int64_t width;
  int64_t height;
  int64_t row_bytes;
  visage_image_format format;
  int32_t rotation_degrees;
} visage_image;

/* A result's fields: rows of 32-bit floats of one width each. */
typedef enum visage_field : int32_t {
  /* The landmarker's: 478 x, y, z a face; 52 blendshape scores; a row-major 4x4 matrix; Euler
   * angles x, y, z; 468 metric x, y, z; the eyes' distances left, right; a tracking ID; the
   * detection score and face presence. */
  VISAGE_FIELD_LANDMARKS = 0,
  VISAGE_FIELD_BLENDSHAPES = 1,
  VISAGE_FIELD_MATRICES = 2,
  VISAGE_FIELD_HEAD_POSES = 3,
  VISAGE_FIELD_METRIC_LANDMARKS = 4,
  VISAGE_FIELD_IRIS_DISTANCES = 5,
  VISAGE_FIELD_TRACKING_IDS = 6,
  VISAGE_FIELD_SCORES = 7,
  /* The detector's: x, y, width, height in pixels; category index and score; 6 keypoints x, y,
   * score; face presence; a tracking ID; the face's in-plane rotation in degrees. */
  VISAGE_FIELD_BOXES = 10,
  VISAGE_FIELD_CATEGORIES = 11,
  VISAGE_FIELD_KEYPOINTS = 12,
  VISAGE_FIELD_FACE_PRESENCES = 13,
  VISAGE_FIELD_DETECTION_TRACKING_IDS = 14,
  VISAGE_FIELD_ROTATIONS = 15,
} visage_field;

/* A live-stream result for `context`: the result (null when the frame failed, with `error`),
 * the frame's timestamp. Called on the engine's thread; the result is the callee's to free. */
typedef void (*visage_live_stream_callback)(
  void *_Nullable context, void *_Nullable result, int64_t timestamp_ms, const char *_Nullable error);

int32_t visage_abi_version(void);
void visage_free(void *_Nullable pointer);

/* A task from its options as a JSON object: "task" (face_landmarker or face_detector),
 * "running_mode" (IMAGE, VIDEO, LIVE_STREAM), "bundled_model_path", "full_range_model_path",
 * optionally "model_asset_path" and "thread_count", and options by the option table's Python
 * names (visage_option_table). */
visage_status visage_task_create(
  const char *_Nonnull options_json, visage_live_stream_callback _Nullable callback, void *_Nullable context,
  void *_Nullable *_Nonnull task, char *_Nullable *_Nullable error);

/* Runs a task on an image. `regions`: `region_count` face regions of five floats (x, y, width,
 * height in pixels, rotation in degrees) for the landmarker, or null. `*result` is null in
 * live-stream mode (the callback has it). */
visage_status visage_task_run(
  void *_Nonnull task, visage_running_mode mode, const visage_image *_Nonnull image, int64_t timestamp_ms,
  const float *_Nullable regions, int64_t region_count, void *_Nullable *_Nonnull result,
  char *_Nullable *_Nullable error);

/* Waits for the task's live-stream frames in hand, then releases it. */
void visage_task_close(void *_Nonnull task);

/* A field's rows (-1 when the result has no such field, its output being off), `*width`
 * floats each at `*values`, valid until visage_result_free. */
int64_t visage_result_field(
  void *_Nonnull result, visage_field field, const void *_Nullable *_Nonnull values, int64_t *_Nonnull width);
/* The blendshapes' category names, one a line; freed with visage_free. */
char *_Nullable visage_result_names(void *_Nonnull result);
int64_t visage_result_timestamp(void *_Nonnull result);
/* The engine's own time for the result, in nanoseconds. */
int64_t visage_result_engine_nanoseconds(void *_Nonnull result);
void visage_result_free(void *_Nonnull result);

/* Decodes an image file into `*image`, whose pixels the caller frees with visage_free. */
visage_status visage_image_decode(
  const char *_Nonnull path, visage_decoder decoder, visage_image *_Nonnull image, char *_Nullable *_Nullable error);
/* 1 when VISAGE_DECODER_MEDIAPIPE decodes with stb_image, 0 when this build falls back. */
int32_t visage_image_decodes_as_mediapipe(void);

/* Visage's aligned face crop: `size` x `size` SRGB pixels into `*crop` (freed with
 * visage_free), from 478 landmarks as x, y, z floats. */
visage_status visage_face_crop(
  const visage_image *_Nonnull image, const float *_Nonnull landmarks, int64_t landmark_count, int64_t size,
  double margin, void *_Nullable *_Nonnull crop, char *_Nullable *_Nullable error);

/* A face landmark connection list by name (tesselation, contours, lips, leftEye, ...) as
 * start, end pairs into `pairs`, which holds `capacity` numbers; returns the numbers the list
 * has (nothing copied when that is more than `capacity`), or -1 for another name. */
int64_t visage_face_connections(const char *_Nonnull name, int32_t *_Nullable pairs, int64_t capacity);

/* A task's option table (detect, landmark, analyze) as a JSON array; freed with visage_free. */
char *_Nullable visage_option_table(const char *_Nonnull task);

/* `visage` command line: runs it with `argc` arguments and returns its exit status. */
int32_t visage_command_line(int32_t argc, char *_Nullable *_Nonnull argv);

#ifdef __cplusplus
}
#endif

#endif
