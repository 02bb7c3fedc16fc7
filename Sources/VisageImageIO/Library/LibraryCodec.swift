// Linux and other platforms without ImageIO: libpng (and DirectPNG.swift's own path for common
// PNGs, with libdeflate) and libjpeg-turbo, through the C shims in
// Sources/CPNG and Sources/CJPEG. Codec.swift chooses between this and Apple/SystemCodec.swift.
#if !canImport(ImageIO)
  import CJPEG
  import CPNG
  import Visage

  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Musl)
    import Musl
  #endif

  /// PNG and JPEG through libpng (common PNGs through `DirectPNG` first) and libjpeg-turbo.
  enum LibraryCodec {
    /// Decodes a PNG or JPEG file; see `PNG.decode(_:limits:)`.
    static func decode(_ bytes: [UInt8], format: ImageFormat, limits: ImageLimits) throws -> MPImage {
      switch format {
      case .png:
        // The common layouts without libpng (much faster); the others, and any damage, with it.
        try DirectPNG.decode(bytes, limits: limits) ?? decodeWithLibpng(bytes, limits: limits)
      case .jpeg:
        try decodeInTwoPhases(bytes, format: .jpeg, limits: limits, with: visage_jpeg_decode, ok: Int32(VISAGE_JPEG_OK))
        {
          status, message in
          switch Int(status) {
          case Int(VISAGE_JPEG_TRUNCATED): .truncated(format: .jpeg, message: message, path: nil)
          case Int(VISAGE_JPEG_UNSUPPORTED): .unsupported(format: .jpeg, message: message, path: nil)
          case Int(VISAGE_JPEG_OUT_OF_MEMORY): .outOfMemory(format: .jpeg, path: nil)
          default: .corrupt(format: .jpeg, message: message, path: nil)
          }
        }
      }
    }

    /// Decodes a PNG with libpng alone: every layout, and the errors for damaged files.
    static func decodeWithLibpng(_ bytes: [UInt8], limits: ImageLimits) throws -> MPImage {
      try decodeInTwoPhases(bytes, format: .png, limits: limits, with: visage_png_decode, ok: Int32(VISAGE_PNG_OK)) {
        status, message in
        switch Int(status) {
        case Int(VISAGE_PNG_TRUNCATED): .truncated(format: .png, message: message, path: nil)
        case Int(VISAGE_PNG_OUT_OF_MEMORY): .outOfMemory(format: .png, path: nil)
        default: .corrupt(format: .png, message: message, path: nil)
        }
      }
    }

    /// Encodes an 8-bit RGB PNG; see `PNG.encode(_:)`.
    static func encodePNG(_ image: MPImage) throws -> [UInt8] {
      var output: UnsafeMutablePointer<UInt8>? = nil
      var size = 0
      let result = image.pixels.withUnsafeBufferPointer { pixels in
        callCodec {
          visage_png_encode(pixels.baseAddress, UInt32(image.width), UInt32(image.height), &output, &size, $0, $1)
        }
      }
      guard Int(result.status) == Int(VISAGE_PNG_OK), let output else {
        if Int(result.status) == Int(VISAGE_PNG_OUT_OF_MEMORY) {
          throw ImageIOError.outOfMemory(format: .png, path: nil)
        }
        throw ImageIOError.encodingFailed(format: .png, message: result.message)
      }
      defer { free(output) }
      return Array(UnsafeBufferPointer(start: output, count: size))
    }
  }

  /// The shape shared by `visage_png_decode` and `visage_jpeg_decode` (see the shim headers):
  /// data, size, width, height, output (nil to read only the header), message buffer, its size.
  typealias CDecoder = (
    UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UInt32>?, UnsafeMutablePointer<UInt32>?,
    UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<CChar>?, Int
  ) -> Int32

  /// Runs a C codec call with a buffer for its message; returns its status and the message.
  func callCodec(_ body: (UnsafeMutablePointer<CChar>, Int) -> Int32) -> (status: Int32, message: String) {
    var buffer = [CChar](repeating: 0, count: 256)
    let status = buffer.withUnsafeMutableBufferPointer { body($0.baseAddress!, $0.count) }
    let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return (status, String(decoding: bytes, as: UTF8.self))
  }

  /// Decodes with a two-phase C decoder: read the size from the header, check it, allocate the
  /// pixels, decode into them.
  ///
  /// - Parameters:
  ///   - ok: the decoder's success status.
  ///   - failure: turns any other status and the codec's message into an error.
  func decodeInTwoPhases(
    _ bytes: [UInt8], format: ImageFormat, limits: ImageLimits, with decoder: CDecoder, ok: Int32,
    failure: (Int32, String) -> ImageIOError
  ) throws -> MPImage {
    try bytes.withUnsafeBufferPointer { data in
      var width: UInt32 = 0
      var height: UInt32 = 0
      let header = callCodec { decoder(data.baseAddress, data.count, &width, &height, nil, $0, $1) }
      guard header.status == ok else { throw failure(header.status, header.message) }
      let count = try checkedPixelCount(width: width, height: height, format: format, limits: limits)
      let pixels = try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
        let body = callCodec {
          decoder(data.baseAddress, data.count, &width, &height, buffer.baseAddress, $0, $1)
        }
        guard body.status == ok else { throw failure(body.status, body.message) }
        initialized = count
      }
      return try MPImage(width: Int(width), height: Int(height), rgb: pixels)
    }
  }

  /// The bytes of 8-bit RGB pixels a header's size needs, once it passes the checks every
  /// decoder makes before allocating (so a small file claiming a huge size costs nothing).
  func checkedPixelCount(width: UInt32, height: UInt32, format: ImageFormat, limits: ImageLimits) throws -> Int {
    guard width <= MPImage.maximumDimension, height <= MPImage.maximumDimension else {
      throw ImageIOError.tooLarge(format: format, width: Int(width), height: Int(height), path: nil)
    }
    guard width > 0, height > 0 else {
      throw ImageIOError.corrupt(format: format, message: "image size is \(width)x\(height)", path: nil)
    }
    guard limits.allows(width: Int(width), height: Int(height)) else {
      throw ImageIOError.tooManyPixels(
        format: format, width: Int(width), height: Int(height), limit: limits.maximumPixels, path: nil)
    }
    return Int(width) * Int(height) * 3
  }
#endif
