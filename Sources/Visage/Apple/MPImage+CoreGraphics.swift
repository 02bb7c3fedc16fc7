// Apple platforms only. Typechecked on Linux against Tests/AppleStandIns by .ci/typecheck-apple;
// see docs/apple-platforms.md.
#if canImport(CoreGraphics)
  import CoreGraphics

  extension MPImage {
    /// Creates an image from a Core Graphics image, as MediaPipe reads a `UIImage`: the image
    /// is drawn into an 8-bit RGBA bitmap with premultiplied alpha in the device RGB colour
    /// space, and those bytes go through `init(width:height:bytesPerRow:format:buffer:orientation:)`
    /// with `.rgba`.
    ///
    /// Opaque images (photos, camera frames) come out as their stored 8-bit samples, with Core
    /// Graphics' colour matching where the image has another colour space. Translucent pixels
    /// keep their premultiplied colour (composited over black), where MediaPipe un-premultiplies
    /// them; 16-bit and floating-point images are rounded to 8 bits by Core Graphics.
    ///
    /// - Parameter orientation: how the stored pixels are turned; a `CGImage` has none of its own.
    /// - Throws: `MPImageError.dimensions` for a side outside 1...`maximumDimension` (checked
    ///   before any allocation), `.unreadableSource` if Core Graphics cannot make the bitmap.
    public init(cgImage: CGImage, orientation: Orientation = .up) throws {
      let (width, height) = (cgImage.width, cgImage.height)
      try Self.validate(width: width, height: height)
      let bytesPerRow = width * 4
      var rgba = [UInt8](repeating: 0, count: bytesPerRow * height)
      let drawn = rgba.withUnsafeMutableBytes { buffer -> Bool in
        // R, G, B, A in memory order: alpha last, 32-bit big-endian words.
        let layout = CGImageAlphaInfo.premultipliedLast.rawValue | CGBitmapInfo.byteOrder32Big.rawValue
        guard
          let context = CGContext(
            data: buffer.baseAddress, width: width, height: height, bitsPerComponent: 8, bytesPerRow: bytesPerRow,
            space: CGColorSpaceCreateDeviceRGB(), bitmapInfo: layout)
        else { return false }
        // The bitmap's first row is the image's top row.
        context.draw(cgImage, in: CGRect(x: 0, y: 0, width: width, height: height))
        return true
      }
      guard drawn else {
        throw MPImageError.unreadableSource("Core Graphics could not make an RGBA bitmap of \(width)x\(height)")
      }
      try self.init(
        width: width, height: height, bytesPerRow: bytesPerRow, format: .rgba, bytes: rgba, orientation: orientation)
    }
  }
#endif
