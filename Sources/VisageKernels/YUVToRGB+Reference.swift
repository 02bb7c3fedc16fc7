extension YUVToRGB {
  /// The conversion pixel by pixel, as the type's summary writes it: the specification the
  /// optimized kernel must match to the bit.
  ///
  /// - Parameters:
  ///   - output: `width * height * 3` bytes, RGB rows top to bottom with no padding.
  public static func reference(
    _ planes: Planes, width: Int, height: Int, _ matrix: Matrix, output: UnsafeMutablePointer<UInt8>
  ) {
    let c = matrix
    for y in 0..<height {
      for x in 0..<width {
        // Each 2×2 block of pixels shares the chroma sample at half its coordinates.
        let u = Int32(planes.u[(y / 2) * planes.uBytesPerRow + (x / 2) * planes.chromaStep]) - 128
        let v = Int32(planes.v[(y / 2) * planes.vBytesPerRow + (x / 2) * planes.chromaStep]) - 128
        let luma = max(0, Int32(planes.y[y * planes.yBytesPerRow + x]) - c.lumaOffset) * c.luma
        let red = luma + Matrix.half + c.crToRed * v
        let green = luma + Matrix.half + c.crToGreen * v + c.cbToGreen * u
        let blue = luma + Matrix.half + c.cbToBlue * u
        let pixel = output + (y * width + x) * 3
        pixel[0] = saturated(red >> Matrix.shift)
        pixel[1] = saturated(green >> Matrix.shift)
        pixel[2] = saturated(blue >> Matrix.shift)
      }
    }
  }

  private static func saturated(_ value: Int32) -> UInt8 { UInt8(min(max(value, 0), 255)) }
}
