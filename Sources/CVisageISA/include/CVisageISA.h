#ifndef VISAGE_CVISAGEISA_H
#define VISAGE_CVISAGEISA_H

// What the three copies of the micro-kernel module (baseline, AVX2, AVX-512) share: the
// CPU check that picks one, and the plain structs their entry points take. Plain C structs
// because the copies cannot import VisageKernels (it imports them) and a Swift module of
// shared types would put its code into each copy.

/// The instruction-set level this CPU and OS can run: 0 baseline x86-64 (SSE2), 1 AVX2 with
/// FMA (what `-target-cpu haswell` may emit), 2 AVX-512 F/CD/BW/DQ/VL (what
/// `-target-cpu skylake-avx512` may emit). Always 0 off x86-64.
int visage_isa_level(void);

/// A packed GEMM's constant side, made once at plan time (see PackedGEMM.swift).
typedef struct {
  /// K×16 panels of B, zero-padded past n.
  const float *_Nonnull panels;
  long n;
  long k;
  /// Rows of C per micro-kernel call: 8, 6, 4 or 2 (6 is the AVX2 and AVX-512 default, 4
  /// arm64's; see TileHeight.swift).
  long tileRows;
  /// n values, padded with zeros to whole panels.
  const float *_Nonnull bias;
  /// Per-column PReLU slopes padded with ones to whole panels, or null.
  const float *_Nullable slopes;
  float lower;
  float upper;
} VisagePackedWeights;

/// One packed GEMM call's operands: C[m×n] = finish(A[m×k] · Bᵀ).
typedef struct {
  long m;
  /// Row i of A is `segmentCount` runs of k / segmentCount values at
  /// a + i·lda + segmentOffsets[s].
  const float *_Nonnull a;
  long lda;
  const long *_Nonnull segmentOffsets;
  long segmentCount;
  float *_Nonnull c;
  long ldc;
  /// Added after the bias: `residualChannels` values per row (the rest get +0), or null.
  const float *_Nullable residual;
  long residualChannels;
} VisageGEMMOperands;

/// A left-packed GEMM's constant side (see LeftPackedGEMM.swift).
typedef struct {
  /// 8-row panels of A, column by column, zero past m.
  const float *_Nonnull panels;
  long m;
  long k;
  /// m values, padded with zeros to whole panels.
  const float *_Nonnull bias;
  /// Rows of C per micro-kernel call: 8 (a whole panel, 32 columns at a time), 4 or 2
  /// (16 columns at a time).
  long tileRows;
  float lower;
  float upper;
} VisageLeftPackedWeights;

/// One 3×3 depthwise output row's geometry (see DepthwiseConvolution+Rows3x3.swift).
typedef struct {
  long channels;
  long strideWidth;
  long outputWidth;
  /// Output columns per span: about 4 KB of each input row.
  long spanWidth;
  /// Whether output column 0's window starts one column left of the image, and whether
  /// the last one's ends one column right of it.
  int leftEdge;
  int rightEdge;
  /// Output columns whose windows lie wholly inside the image.
  long firstInside;
  long endInside;
  long padLeft;
  /// 9·channels weights, tap-major; channels biases; per-channel PReLU slopes or null.
  const float *_Nonnull filter;
  const float *_Nonnull bias;
  const float *_Nullable slopes;
  float lower;
  float upper;
} VisageDepthwise3x3;

/// One fixed-point warp of an 8-bit RGB image into floats (see FixedPointWarp.swift).
typedef struct {
  /// width × height × 3 bytes, rows packed.
  const unsigned char *_Nonnull pixels;
  long width;
  long height;
  long outputWidth;
  long outputHeight;
  /// OpenCV's destination block width: each block's start anchors the map's arithmetic.
  long blockWidth;
  /// The inverse perspective map, row-major: output (u, v) to source (x, y, w).
  double map[9];
  /// 1: taps outside the image take the nearest edge pixel; 0: they are black.
  int replicateBorder;
  /// Level l (0...255) becomes l · scale + offset.
  float scale;
  float offset;
} VisageFixedPointWarp;

#endif
