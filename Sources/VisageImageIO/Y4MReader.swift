import Visage
import VisageTFLite

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Why a YUV4MPEG2 stream could not be read.
public enum Y4MError: Error, Equatable, CustomStringConvertible {
  /// The file could not be opened; `reason` is the system's explanation.
  case unreadableFile(path: String, reason: String)
  /// The stream does not start with `YUV4MPEG2 `, or a header line is malformed.
  case corrupt(source: String, message: String)
  /// A well-formed stream in a layout this reader does not handle.
  case unsupported(source: String, message: String)
  /// The stream ends inside a frame.
  case truncated(source: String, frame: Int)

  /// A sentence naming the stream and what is wrong.
  public var description: String {
    switch self {
    case .unreadableFile(let path, let reason): "cannot read YUV4MPEG2 file '\(path)': \(reason)"
    case .corrupt(let source, let message): "YUV4MPEG2 stream \(source) is corrupt: \(message)"
    case .unsupported(let source, let message): "YUV4MPEG2 stream \(source) is not supported: \(message)"
    case .truncated(let source, let frame): "YUV4MPEG2 stream \(source) is truncated inside frame \(frame)"
    }
  }
}

/// What standard input holds: one PNG or JPEG file's bytes, or a YUV4MPEG2 stream.
public enum StandardInput {
  case image([UInt8])
  case frames(Y4MReader)
}

/// Reads a YUV4MPEG2 stream (`ffmpeg -f yuv4mpegpipe`) one frame at a time, from a file or
/// from standard input, and converts each frame to 8-bit RGB.
///
/// Handled: 4:2:0 (every chroma siting), 4:2:2, 4:4:4 and mono, at 8 bits or 9 to 16 bits
/// (two bytes per sample, little endian, scaled to 8 bits). Progressive and interlaced frames
/// alike are read as whole frames. YUV4MPEG2 does not say which YCbCr matrix the video used;
/// like most players this reader takes BT.709 for frames at least 720 rows high and BT.601
/// below, with limited range unless the stream says `XCOLORRANGE=FULL`. Chroma is upsampled
/// by repeating each sample over the pixels it covers.
public final class Y4MReader {
  /// Frame width in pixels.
  public let width: Int
  /// Frame height in pixels.
  public let height: Int
  /// Frames per second from the `F` parameter, when the stream gives a valid one.
  public let frameRate: Double?
  /// How the stream is named in errors: `'path'` or `on standard input`.
  public let source: String
  /// Frames returned so far.
  public private(set) var framesRead = 0

  private let file: UnsafeMutablePointer<FILE>
  private let ownsFile: Bool
  private let layout: Layout
  private var planeBytes: [UInt8]

  /// The largest accepted side, the same bound images have.
  public static var maximumDimension: Int { MPImage.maximumDimension }
  /// Opens a `.y4m` file and reads its header. Frames may have at most
  /// `limits.maximumPixels` pixels, checked before the frame buffer is allocated. `path` is
  /// read as a `BytePath`, as for `DecodedImage`.
  public convenience init(contentsOfFile path: String, limits: ImageLimits = .default) throws {
    guard let file = fopen(BytePath(path).cString, "rb") else {
      throw Y4MError.unreadableFile(path: path, reason: String(cString: strerror(errno)))
    }
    do { try self.init(file: file, ownsFile: true, source: "'\(path)'", limits: limits) } catch {
      fclose(file)
      throw error
    }
  }

  /// Reads the stream on standard input (`-` on the command line), with frames of at most
  /// `limits.maximumPixels` pixels.
  public static func standardInput(limits: ImageLimits = .default) throws -> Y4MReader {
    guard let file = fdopen(STDIN_FILENO, "rb") else {
      throw Y4MError.unreadableFile(path: "-", reason: String(cString: strerror(errno)))
    }
    return try Y4MReader(file: file, ownsFile: false, source: "on standard input", limits: limits)
  }

  /// What standard input holds, told by its first byte: 0x89 or 0xFF, with which a PNG's
  /// signature and a JPEG's start-of-image marker begin (and no YUV4MPEG2 header can), make it
  /// one image, read whole as a pipe is by `MPImage(contentsOfFile:)`; anything else is read
  /// as a YUV4MPEG2 stream (`-` on the command line).
  public static func standardInputContents(limits: ImageLimits = .default) throws -> StandardInput {
    guard let file = fdopen(STDIN_FILENO, "rb") else {
      throw Y4MError.unreadableFile(path: "-", reason: String(cString: strerror(errno)))
    }
    let first = getc(file)
    if first != EOF { ungetc(first, file) }
    guard first == 0x89 || first == 0xFF else {
      return .frames(try Y4MReader(file: file, ownsFile: false, source: "on standard input", limits: limits))
    }
    return .image(
      try ImageFile.piped(name: "stdin") {
        let count = fread($0, 1, $1, file)
        return count == 0 && ferror(file) != 0 ? -1 : count
      })
  }

  private init(file: UnsafeMutablePointer<FILE>, ownsFile: Bool, source: String, limits: ImageLimits) throws {
    self.file = file
    self.ownsFile = ownsFile
    self.source = source
    guard let line = try Self.readLine(file, source: source, what: "the stream header") else {
      throw Y4MError.corrupt(source: source, message: "empty, or no header line")
    }
    let fields = line.split(separator: " ", omittingEmptySubsequences: true)
    guard fields.first == "YUV4MPEG2" else {
      // Another kind of image is the likely mistake (a GIF piped in): name it.
      let kind = ImageIOError.formatName(Array(line.utf8.prefix(16))).map { " (it looks like \($0))" } ?? ""
      throw Y4MError.corrupt(source: source, message: "does not start with 'YUV4MPEG2 '\(kind)")
    }
    var width = 0
    var height = 0
    var rate: Double?
    var colorspace = "420jpeg"
    var fullRange = false
    for field in fields.dropFirst() {
      let value = field.dropFirst()
      switch field.first {
      case "W": width = Int(value) ?? -1
      case "H": height = Int(value) ?? -1
      case "C": colorspace = String(value)
      case "F":
        // Two positive integers, as the format defines them; anything else (a float, inf,
        // an overflowing number) is a damaged header, not a rate to guess at.
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let n = Int(parts[0]), let d = Int(parts[1]), n > 0, d > 0 else {
          throw Y4MError.corrupt(
            source: source, message: "the frame rate must be two positive integers, F<num>:<den>; got '\(field)'")
        }
        rate = Double(n) / Double(d)
      case "X": if value == "COLORRANGE=FULL" { fullRange = true }
      default: break
      }
    }
    guard width > 0, height > 0 else {
      throw Y4MError.corrupt(source: source, message: "the header needs positive W and H, got '\(line)'")
    }
    guard width <= Self.maximumDimension, height <= Self.maximumDimension, limits.allows(width: width, height: height)
    else {
      throw Y4MError.unsupported(
        source: source,
        message:
          "\(width)x\(height) frames are too large: at most \(Self.maximumDimension) a side and \(limits.maximumPixels) pixels (ImageLimits.maximumPixels)"
      )
    }
    guard let layout = Layout(colorspace: colorspace, width: width, height: height, fullRange: fullRange) else {
      throw Y4MError.unsupported(source: source, message: "colour space C\(colorspace)")
    }
    self.width = width
    self.height = height
    self.frameRate = rate
    self.layout = layout
    planeBytes = [UInt8](repeating: 0, count: layout.frameBytes)
  }

  deinit { if ownsFile { fclose(file) } }

  /// The next frame as an upright RGB image, or `nil` at the end of the stream.
  public func nextFrame() throws -> MPImage? {
    guard let line = try Self.readLine(file, source: source, what: "frame \(framesRead)'s FRAME line") else {
      if ferror(file) != 0 { throw Y4MError.truncated(source: source, frame: framesRead) }
      return nil
    }
    guard line == "FRAME" || line.hasPrefix("FRAME ") else {
      throw Y4MError.corrupt(source: source, message: "frame \(framesRead) does not start with 'FRAME'")
    }
    let count = planeBytes.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
    guard count == planeBytes.count else { throw Y4MError.truncated(source: source, frame: framesRead) }
    // A fresh buffer per frame: the image keeps it, so reusing one would copy it anyway.
    var rgb = [UInt8](repeating: 0, count: width * height * 3)
    layout.convert(planeBytes, into: &rgb)
    framesRead += 1
    return try MPImage(width: width, height: height, rgb: rgb)
  }

  /// The longest header or FRAME line accepted, newline excluded. Real ones are a few dozen
  /// bytes; the bound keeps a stream without newlines from growing a line without end.
  public static let maximumLineBytes = 4096

  /// One header line without its newline; `nil` at end of input.
  ///
  /// - Throws: `Y4MError.corrupt` naming `what` for a line longer than `maximumLineBytes`.
  ///   It is refused whole rather than cut, since the rest of it would be read as pixels.
  private static func readLine(_ file: UnsafeMutablePointer<FILE>, source: String, what: String) throws(Y4MError)
    -> String?
  {
    var bytes: [UInt8] = []
    while true {
      let c = getc(file)
      if c == EOF { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
      // A Windows line end is taken as the line's end too, not as part of its last field.
      if c == 0x0A { return String(decoding: bytes.last == 0x0D ? bytes.dropLast() : bytes[...], as: UTF8.self) }
      guard bytes.count < maximumLineBytes else {
        throw .corrupt(source: source, message: "\(what) is longer than \(maximumLineBytes) bytes")
      }
      bytes.append(UInt8(c))
    }
  }
}

/// How a frame's planes are laid out and how its samples become RGB.
private struct Layout {
  let width: Int
  let height: Int
  /// Chroma subsampling shifts: 4:2:0 is (1, 1), 4:2:2 is (1, 0), 4:4:4 is (0, 0).
  let shiftX: Int
  let shiftY: Int
  let hasChroma: Bool
  /// Bits per sample: 8, or 9...16 stored in two little-endian bytes.
  let bits: Int
  let fullRange: Bool
  /// Kr and Kb of the YCbCr matrix.
  let kr: Float
  let kb: Float

  var bytesPerSample: Int { bits > 8 ? 2 : 1 }
  var chromaWidth: Int { (width + (1 << shiftX) - 1) >> shiftX }
  var chromaHeight: Int { (height + (1 << shiftY) - 1) >> shiftY }
  var frameBytes: Int { (width * height + (hasChroma ? 2 * chromaWidth * chromaHeight : 0)) * bytesPerSample }

  init?(colorspace: String, width: Int, height: Int, fullRange: Bool) {
    var name = Substring(colorspace)
    var bits = 8
    if let p = name.lastIndex(of: "p"), let b = Int(name[name.index(after: p)...]) {
      bits = b
      name = name[..<p]
    } else if name.hasPrefix("mono"), let b = Int(name.dropFirst(4)) {
      bits = b
      name = "mono"
    }
    guard (8...16).contains(bits) else { return nil }
    switch name {
    case "420", "420jpeg", "420paldv", "420mpeg2": (shiftX, shiftY, hasChroma) = (1, 1, true)
    case "422": (shiftX, shiftY, hasChroma) = (1, 0, true)
    case "444": (shiftX, shiftY, hasChroma) = (0, 0, true)
    case "mono": (shiftX, shiftY, hasChroma) = (0, 0, false)
    default: return nil
    }
    self.width = width
    self.height = height
    self.bits = bits
    self.fullRange = fullRange
    (kr, kb) = height >= 720 ? (0.2126, 0.0722) : (0.299, 0.114)
  }

  /// Converts one frame's planes to interleaved 8-bit RGB.
  func convert(_ planes: [UInt8], into rgb: inout [UInt8]) {
    // Deeper samples come down to the 8-bit scale: limited range by the bit shift (10-bit
    // white 940 is 8-bit 235), full range by the ratio of the maxima (1023 is 255).
    let scale = fullRange ? Float(255) / Float((1 << bits) - 1) : 1 / Float(1 << (bits - 8))
    // Limited range: Y in 16...235 and Cb, Cr in 16...240 (at 8 bits).
    let (yOffset, yGain, cGain): (Float, Float, Float) = fullRange ? (0, 1, 1) : (16, 255 / 219, 255 / 224)
    let kg = 1 - kr - kb
    let crToR = 2 * (1 - kr)
    let cbToB = 2 * (1 - kb)
    let cbToG = -2 * kb * (1 - kb) / kg
    let crToG = -2 * kr * (1 - kr) / kg
    let lumaCount = width * height
    let chromaCount = chromaWidth * chromaHeight
    planes.withUnsafeBufferPointer { src in
      rgb.withUnsafeMutableBufferPointer { dst in
        func sample(_ index: Int) -> Float {
          if bytesPerSample == 1 { return Float(src[index]) }
          let lo = Int(src[2 * index])
          let hi = Int(src[2 * index + 1])
          return Float(hi << 8 | lo) * scale
        }
        for y in 0..<height {
          let chromaRow = (y >> shiftY) * chromaWidth
          for x in 0..<width {
            let luma = (sample(y * width + x) - yOffset) * yGain
            var r = luma
            var g = luma
            var b = luma
            if hasChroma {
              let c = chromaRow + (x >> shiftX)
              let cb = (sample(lumaCount + c) - 128) * cGain
              let cr = (sample(lumaCount + chromaCount + c) - 128) * cGain
              r += crToR * cr
              g += cbToG * cb + crToG * cr
              b += cbToB * cb
            }
            let o = (y * width + x) * 3
            dst[o] = Self.byte(r)
            dst[o + 1] = Self.byte(g)
            dst[o + 2] = Self.byte(b)
          }
        }
      }
    }
  }

  private static func byte(_ v: Float) -> UInt8 { UInt8(min(max(v.rounded(), 0), 255)) }
}
