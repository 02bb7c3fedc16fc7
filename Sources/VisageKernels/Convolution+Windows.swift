/// How the packed GEMM reads a convolution's windows in place: as runs of a zero-padded
/// copy of the input (or of the input itself, when no padding is needed), so no patch is
/// ever copied out.
///
/// Within one output row, neighbouring windows start `strideWidth · channels` values apart,
/// and a window is one run per filter row (`filterWidth · channels` contiguous values; one
/// run per tap when dilated across columns), read in the reference's (fy, fx, c) order.
/// Padding values are real zeros here, where the reference skips them: x·0 = ±0 added to a
/// sum that starts at +0 leaves it unchanged, so the results stay bit-identical for any
/// finite filter.
// Threads: the offsets are only read once made; a parallel `fill` writes disjoint rows of
// `padded`, which is read only once the fill is done.
final class Windows {
  let geometry: ConvolutionGeometry
  /// Rows and columns of the image the windows are read from.
  let imageHeight: Int
  let imageWidth: Int
  /// The zero-padded image, or nil when the input can be read directly.
  let padded: UnsafeMutableBufferPointer<Float>?
  /// Offsets of the runs from a window's start, in k order.
  let offsets: UnsafeMutableBufferPointer<Int>

  init(_ g: ConvolutionGeometry) {
    geometry = g
    // Just the rows and columns the windows reach, padding included.
    let height = (g.output.height - 1) * g.strideHeight + (g.filterHeight - 1) * g.dilationHeight + 1
    let width = (g.output.width - 1) * g.strideWidth + (g.filterWidth - 1) * g.dilationWidth + 1
    if g.padTop == 0 && g.padLeft == 0 && height <= g.input.height && width <= g.input.width {
      (imageHeight, imageWidth) = (g.input.height, g.input.width)
      padded = nil
    } else {
      (imageHeight, imageWidth) = (height, width)
      let count = g.input.batch * height * width * g.input.channels
      padded = UnsafeMutableBufferPointer(start: CacheAligned.allocate(Float.self, count: count), count: count)
      padded!.initialize(repeating: 0)
    }
    let channels = g.input.channels
    let runPerTap = g.dilationWidth != 1
    offsets = .allocate(capacity: g.filterHeight * (runPerTap ? g.filterWidth : 1))
    var i = 0
    for fy in 0..<g.filterHeight {
      for fx in 0..<(runPerTap ? g.filterWidth : 1) {
        offsets[i] = (fy * g.dilationHeight * imageWidth + fx * g.dilationWidth) * channels
        i += 1
      }
    }
  }

  deinit {
    padded?.deallocate()
    offsets.deallocate()
  }

  /// Runs the convolution with `gemm` (packed from the OHWI filter), one output row at a time.
  func multiply(
    _ gemm: PackedGEMM, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
    residual: PackedGEMM.Residual?
  ) {
    fill(input, rows: 0..<fillRowCount)
    multiply(gemm, image: source(for: input), output: output, residual: residual, rows: 0..<rowCount)
  }

  /// Output rows over all images: the units `multiply(_:image:output:residual:rows:)` splits.
  var rowCount: Int { geometry.output.batch * geometry.output.height }

  /// Where the windows are read from for `input`: the padded copy (which `fill` fills) or
  /// the input itself.
  func source(for input: UnsafePointer<Float>) -> UnsafePointer<Float> {
    padded.map { UnsafePointer($0.baseAddress!) } ?? input
  }

  /// Output rows `rows` (counted over all images) from `image` (see `source(for:)`), whose
  /// padded copy, if any, has been filled.
  func multiply(
    _ gemm: PackedGEMM, image: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
    residual: PackedGEMM.Residual?, rows: Range<Int>
  ) {
    let g = geometry
    let channels = g.input.channels
    let segments = PackedGEMM.Segments(offsets: UnsafePointer(offsets.baseAddress!), count: offsets.count)
    for row in rows {
      let (b, outY) = row.quotientAndRemainder(dividingBy: g.output.height)
      let firstPixel = row * g.output.width
      gemm.multiply(
        m: g.output.width, a: image + (b * imageHeight + outY * g.strideHeight) * imageWidth * channels,
        lda: g.strideWidth * channels, segments: segments, c: output + firstPixel * g.output.channels,
        ldc: g.output.channels,
        residual: residual?.rows(from: firstPixel))
    }
  }

  /// Rows of the input `fill` copies (counted over all images): the units a parallel fill
  /// splits; 0 when the input is read in place.
  var fillRowCount: Int { padded == nil ? 0 : geometry.input.batch * filledRowsPerImage }

  /// Input rows of each image that land inside the padded image.
  private var filledRowsPerImage: Int { max(0, min(geometry.input.height, imageHeight - geometry.padTop)) }

  /// Copies input rows `rows` (counted over all images, `0..<fillRowCount`) into the middle
  /// of the padded image; the border stays zero from allocation, as nothing else writes
  /// there. Separate calls may copy separate rows at the same time.
  func fill(_ input: UnsafePointer<Float>, rows: Range<Int>) {
    guard let image = padded?.baseAddress else { return }
    let g = geometry
    let channels = g.input.channels
    let columns = max(0, min(g.input.width, imageWidth - g.padLeft))
    for row in rows {
      let (b, y) = row.quotientAndRemainder(dividingBy: filledRowsPerImage)
      let target = image + ((b * imageHeight + y + g.padTop) * imageWidth + g.padLeft) * channels
      target.update(from: input + g.input.offset(b, y, 0, 0), count: columns * channels)
    }
  }
}
