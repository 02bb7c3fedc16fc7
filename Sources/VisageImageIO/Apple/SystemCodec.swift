// Apple platforms only. Typechecked on Linux against Tests/AppleStandIns by .ci/typecheck-apple;
// see docs/apple-platforms.md.
#if canImport(ImageIO)
  import CoreFoundation
  import CoreGraphics
  import ImageIO
  import Visage

  /// PNG and JPEG through Apple's ImageIO, which Apple builds of VisageImageIO use instead of
  /// libpng and libjpeg-turbo (not linked there, so that an iOS app can link this module).
  /// ImageIO only reads and writes the files: the pixels go through `MPImage(cgImage:)`, and the
  /// size limits, orientation (`ExifOrientation`) and errors are handled as on Linux.
  enum SystemCodec {
    /// Decodes a PNG or JPEG file with ImageIO; see `PNG.decode(_:limits:)`.
    static func decode(_ bytes: [UInt8], format: ImageFormat, limits: ImageLimits) throws -> MPImage {
      // ImageIO reads many formats; `PNG.decode` and `JPEG.decode` take only their own, as
      // libpng and libjpeg do.
      guard ImageFormat(sniffing: bytes) == format else {
        throw ImageIOError.corrupt(format: format, message: "not a \(format) file (wrong signature)", path: nil)
      }
      guard let data = bytes.withUnsafeBufferPointer({ CFDataCreate(nil, $0.baseAddress, $0.count) }),
        let source = CGImageSourceCreateWithData(data, nil)
      else { throw ImageIOError.outOfMemory(format: format, path: nil) }
      switch CGImageSourceGetStatusAtIndex(source, 0) {
      case .statusUnexpectedEOF, .statusIncomplete:
        throw ImageIOError.truncated(format: format, message: "ImageIO reports the data incomplete", path: nil)
      case .statusInvalidData, .statusUnknownType:
        throw ImageIOError.corrupt(format: format, message: "ImageIO reports the data invalid", path: nil)
      default: break
      }
      // ImageIO decodes when the image is drawn, not here (kCGImageSourceShouldCacheImmediately
      // is off by default), so the size from the header is checked before any pixel exists.
      guard let image = CGImageSourceCreateImageAtIndex(source, 0, nil) else {
        throw ImageIOError.corrupt(format: format, message: "ImageIO could not read the image", path: nil)
      }
      let (width, height) = (image.width, image.height)
      guard width <= MPImage.maximumDimension, height <= MPImage.maximumDimension else {
        throw ImageIOError.tooLarge(format: format, width: width, height: height, path: nil)
      }
      guard width > 0, height > 0 else {
        throw ImageIOError.corrupt(format: format, message: "image size is \(width)x\(height)", path: nil)
      }
      guard limits.allows(width: width, height: height) else {
        throw ImageIOError.tooManyPixels(
          format: format, width: width, height: height, limit: limits.maximumPixels, path: nil)
      }
      do {
        return try MPImage(cgImage: image)
      } catch let error as MPImageError {
        throw ImageIOError.corrupt(format: format, message: error.description, path: nil)
      }
    }

    /// Encodes an image as an 8-bit RGB PNG with ImageIO; see `PNG.encode(_:)`.
    static func encodePNG(_ image: MPImage) throws -> [UInt8] {
      func failure(_ step: String) -> ImageIOError { .encodingFailed(format: .png, message: "ImageIO: \(step)") }
      // The packed RGB pixels as they are: 24 bits a pixel, no alpha, rows top to bottom.
      guard let pixels = image.pixels.withUnsafeBufferPointer({ CFDataCreate(nil, $0.baseAddress, $0.count) }),
        let provider = CGDataProvider(data: pixels),
        let picture = CGImage(
          width: image.width, height: image.height, bitsPerComponent: 8, bitsPerPixel: 24,
          bytesPerRow: image.width * 3, space: CGColorSpaceCreateDeviceRGB(),
          bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.none.rawValue), provider: provider, decode: nil,
          shouldInterpolate: false, intent: .defaultIntent)
      else { throw failure("could not wrap the pixels in a CGImage") }
      guard let output = CFDataCreateMutable(nil, 0),
        let type = CFStringCreateWithCString(nil, "public.png", CFStringBuiltInEncodings.UTF8.rawValue),
        let destination = CGImageDestinationCreateWithData(output, type, 1, nil)
      else { throw failure("could not create a PNG destination") }
      CGImageDestinationAddImage(destination, picture, nil)
      guard CGImageDestinationFinalize(destination), let bytes = CFDataGetBytePtr(output) else {
        throw failure("writing the PNG failed")
      }
      return Array(UnsafeBufferPointer(start: bytes, count: CFDataGetLength(output)))
    }
  }
#endif
