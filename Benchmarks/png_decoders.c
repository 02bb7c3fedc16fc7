// Issue 32, item 2: would another PNG decoder or inflate that Debian 12 offers be faster?
// Times one PNG's decode with libpng (Visage's transforms: expand, scale_16, strip alpha, gray
// to RGB, to 8-bit RGB) and with libspng 0.7.3 (SPNG_FMT_RGB8), checks that both give the same
// pixels, and times the IDAT stream's inflate alone with zlib and with libdeflate 1.14. Best of
// N runs each, one thread. Debian has no zlib-ng. Not part of the build; to run it:
//
//   apt-get install libspng-dev libdeflate-dev
//   gcc -O2 -o /tmp/png_decoders Benchmarks/png_decoders.c $(pkg-config --cflags --libs libpng spng zlib) -ldeflate
//   /tmp/png_decoders photo.png 5
#include <png.h>
#include <spng.h>
#include <zlib.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
typedef struct { const unsigned char *p; size_t n, at; } src;
static void rd(png_structp png, png_bytep out, size_t count) {
  src *s = png_get_io_ptr(png); memcpy(out, s->p + s->at, count); s->at += count; }

static unsigned char *libpng_decode(const unsigned char *data, size_t size, unsigned *w, unsigned *h) {
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  png_infop info = png_create_info_struct(png);
  src s = {data, size, 0};
  png_set_read_fn(png, &s, rd);
  png_read_info(png, info);
  *w = png_get_image_width(png, info); *h = png_get_image_height(png, info);
  png_set_expand(png); png_set_scale_16(png); png_set_strip_alpha(png); png_set_gray_to_rgb(png);
  int passes = png_set_interlace_handling(png);
  png_read_update_info(png, info);
  unsigned char *rgb = malloc((size_t)*w * *h * 3);
  for (int p = 0; p < passes; p++) for (unsigned y = 0; y < *h; y++) png_read_row(png, rgb + (size_t)y * *w * 3, NULL);
  png_read_end(png, NULL);
  png_destroy_read_struct(&png, &info, NULL);
  return rgb;
}

static unsigned char *spng_decode(const unsigned char *data, size_t size, unsigned *w, unsigned *h) {
  spng_ctx *ctx = spng_ctx_new(0);
  spng_set_png_buffer(ctx, data, size);
  struct spng_ihdr ihdr; spng_get_ihdr(ctx, &ihdr); *w = ihdr.width; *h = ihdr.height;
  size_t out; spng_decoded_image_size(ctx, SPNG_FMT_RGB8, &out);
  unsigned char *rgb = malloc(out);
  int r = spng_decode_image(ctx, rgb, out, SPNG_FMT_RGB8, 0);
  if (r) fprintf(stderr, "spng: %s\n", spng_strerror(r));
  spng_ctx_free(ctx);
  return rgb;
}

// The IDAT chunks concatenated (the zlib stream).
static unsigned char *idat(const unsigned char *d, size_t n, size_t *len) {
  unsigned char *z = malloc(n); *len = 0; size_t at = 8;
  while (at + 12 <= n) {
    unsigned L = (d[at] << 24) | (d[at+1] << 16) | (d[at+2] << 8) | d[at+3];
    if (!memcmp(d + at + 4, "IDAT", 4)) { memcpy(z + *len, d + at + 8, L); *len += L; }
    at += 12 + L;
  }
  return z;
}

int main(int argc, char **argv) {
  FILE *f = fopen(argv[1], "rb"); fseek(f, 0, SEEK_END); size_t n = ftell(f); rewind(f);
  unsigned char *d = malloc(n); fread(d, 1, n, f); fclose(f);
  int runs = argc > 2 ? atoi(argv[2]) : 5;
  unsigned w, h; double best;
  unsigned char *a = libpng_decode(d, n, &w, &h), *b = spng_decode(d, n, &w, &h);
  printf("%s: %ux%u, %zu bytes; libspng RGB8 %s libpng's pixels\n", argv[1], w, h, n,
         memcmp(a, b, (size_t)w * h * 3) ? "DIFFERS from" : "equals");
  free(a); free(b);
  best = 1e9; for (int i = 0; i < runs; i++) { double t = now(); free(libpng_decode(d, n, &w, &h)); t = now() - t; if (t < best) best = t; }
  printf("  libpng decode    %7.1f ms\n", best * 1e3); double png = best;
  best = 1e9; for (int i = 0; i < runs; i++) { double t = now(); free(spng_decode(d, n, &w, &h)); t = now() - t; if (t < best) best = t; }
  printf("  libspng decode   %7.1f ms (%.2fx)\n", best * 1e3, png / best);
  size_t zl; unsigned char *z = idat(d, n, &zl);
  size_t raw = (size_t)h * (1 + (size_t)w * 3) + 1024; unsigned char *out = malloc(raw);
  best = 1e9; for (int i = 0; i < runs; i++) { uLongf ol = raw; double t = now(); uncompress(out, &ol, z, zl); t = now() - t; if (t < best) best = t; }
  printf("  zlib inflate     %7.1f ms (%.0f%% of libpng's decode)\n", best * 1e3, 100 * best / png); double zi = best;
  struct libdeflate_decompressor *dd = libdeflate_alloc_decompressor();
  best = 1e9; for (int i = 0; i < runs; i++) { size_t ol; double t = now(); libdeflate_zlib_decompress(dd, z, zl, out, raw, &ol); t = now() - t; if (t < best) best = t; }
  printf("  libdeflate inflate %5.1f ms (%.2fx zlib); libpng with it would take about %.1f ms (%.2fx)\n", best * 1e3, zi / best, (png - zi + best) * 1e3, png / (png - zi + best));
  return 0;
}
