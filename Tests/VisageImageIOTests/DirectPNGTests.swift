#if !canImport(ImageIO)
  import CPNG
  import Testing
  import Visage
  import VisageTestSupport

  @testable import VisageImageIO

  /// Visage's own PNG path (`DirectPNG`) against libpng, its reference twin: the same pixels,
  /// bit for bit, on PNGs written here with every filter on every kind of row, and libpng's own
  /// outcome (the pixels or the error) for every file the path declines.
  @Suite struct DirectPNGTests {
    /// Random sizes from 1×1, RGB and RGBA, each row's filter drawn from all five (or all
    /// Paeth), the stream cut into IDAT chunks of random sizes with ancillary chunks around them,
    /// and pixels either noise or a few levels (so Paeth's ties come up often).
    @Test func sameBytesAsLibpng() throws {
      var random = RandomSource(seed: 41)
      for round in 0..<300 {
        let width = round < 20 ? 1 + round % 4 : random.int(in: 1..<90)
        let height = round < 20 ? 1 + round / 4 : random.int(in: 1..<40)
        let channels = [3, 4][random.int(in: 0..<2)]
        let levels = random.int(in: 0..<2) == 0 ? 256 : 3
        let samples = (0..<(width * height * channels)).map { _ in
          UInt8(levels == 256 ? random.int(in: 0..<256) : [0, 1, 255][random.int(in: 0..<3)])
        }
        // A third all Paeth, as photo encoders write (RGB takes consecutive Paeth rows in pairs).
        let allPaeth = random.int(in: 0..<3) == 0
        let filters = (0..<height).map { _ in allPaeth ? 4 : UInt8(random.int(in: 0..<5)) }
        let png = TestPNG(width: width, height: height, channels: channels, samples: samples)
        let bytes = png.encoded(
          filters: filters, chunkSize: random.int(in: 1..<400), ancillary: random.int(in: 0..<2) == 0)
        let direct = try #require(try DirectPNG.decode(bytes, limits: .default), "round \(round) declined")
        let reference = try LibraryCodec.decodeWithLibpng(bytes, limits: .default)
        let first = direct.pixels.indices.first { direct.pixels[$0] != reference.pixels[$0] }
        #expect(
          direct.pixels.count == reference.pixels.count && first == nil,
          "round \(round): \(width)x\(height), \(channels) channels, first difference at byte \(first ?? -1)")
        #expect((direct.width, direct.height) == (reference.width, reference.height))
      }
    }

    /// Layouts the path leaves to libpng, and damaged files: it declines them, and `PNG.decode`
    /// gives exactly what libpng gives, pixels or error.
    @Test func declinesWhatLibpngMustDecide() throws {
      var random = RandomSource(seed: 43)
      let samples = (0..<(9 * 7 * 3)).map { _ in UInt8(random.int(in: 0..<256)) }
      let png = TestPNG(width: 9, height: 7, channels: 3, samples: samples)
      let good = png.encoded(filters: [4, 1, 0, 2, 3, 4, 4], chunkSize: 50)
      let stream = png.stream(filters: [4, 1, 0, 2, 3, 4, 4])
      var cases: [(String, [UInt8])] = [
        ("16-bit", TestPNG.file(header: png.header(depth: 16, color: 2), data: stream)),
        ("gray", TestPNG.file(header: png.header(color: 0), data: stream)),
        ("palette", TestPNG.file(header: png.header(color: 3), data: stream)),
        ("interlaced", TestPNG.file(header: png.header(interlace: 1), data: stream)),
        ("tRNS", TestPNG.file(header: png.header(), data: stream, before: [("tRNS", [0, 0, 0, 0, 0, 0])])),
        ("no IEND", Array(good.dropLast(12))),
        ("truncated", Array(good.prefix(good.count / 2))),
        ("a row short", TestPNG.file(header: png.header(), data: png.stream(filters: [0, 0, 0, 0, 0, 0]))),
        ("bad filter byte", TestPNG.file(header: png.header(), data: png.stream(filters: [0, 0, 5, 0, 0, 0, 0]))),
        ("bytes after the stream", TestPNG.file(header: png.header(), data: stream + [1, 2, 3])),
        ("unknown critical chunk", TestPNG.file(header: png.header(), data: stream, before: [("ABCD", [1])])),
        ("chunk name not letters", TestPNG.file(header: png.header(), data: stream, before: [("a1b2", [1])])),
        ("a palette", TestPNG.file(header: png.header(), data: stream, before: [("PLTE", [1, 2, 3])])),
        (
          "two palettes",
          TestPNG.file(header: png.header(), data: stream, before: [("PLTE", [1, 2, 3]), ("PLTE", [4, 5, 6])])
        ),
        ("a window under 32 KiB", TestPNG.file(header: png.header(), data: TestPNG.withWindow(stream, log2: 14))),
        (
          "zero width",
          TestPNG.file(header: TestPNG(width: 0, height: 7, channels: 3, samples: []).header(), data: stream)
        ),
      ]
      var badCRC = good
      badCRC[good.count - 20] ^= 0x40  // a byte of the last IDAT's data
      cases.append(("bad CRC", badCRC))
      var broken = good
      broken[33 + 8 + 4] ^= 0xFF  // inside the zlib stream, CRC fixed below
      cases.append(("broken stream", TestPNG.fixingCRCs(broken)))
      for (name, bytes) in cases {
        #expect(try DirectPNG.decode(bytes, limits: .default) == nil, "\(name) was not left to libpng")
        let viaPNG = Result { try PNG.decode(bytes) }
        let viaLibpng = Result { try LibraryCodec.decodeWithLibpng(bytes, limits: .default) }
        switch (viaPNG, viaLibpng) {
        case (.success(let a), .success(let b)): #expect(a.pixels.elementsEqual(b.pixels), "\(name)")
        case (.failure(let a), .failure(let b)): #expect("\(a)" == "\(b)", "\(name)")
        default: Issue.record("\(name): PNG.decode gave \(viaPNG), libpng \(viaLibpng)")
        }
      }
    }

    /// A header claiming more pixels than the limits allow fails before anything is allocated,
    /// with the error libpng's path gives.
    @Test func sizeLimitsAreCheckedFirst() throws {
      let png = TestPNG(width: 5000, height: 5000, channels: 3, samples: [])
      let bytes = TestPNG.file(header: png.header(), data: [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])
      let limits = ImageLimits(maximumPixels: 1_000_000)
      let direct = Result { try DirectPNG.decode(bytes, limits: limits) }
      let reference = Result { try LibraryCodec.decodeWithLibpng(bytes, limits: limits) }
      guard case .failure(let a) = direct, case .failure(let b) = reference else {
        Issue.record("expected errors, got \(direct) and \(reference)")
        return
      }
      #expect("\(a)" == "\(b)")
    }
  }

  /// An 8-bit PNG written here, each row with the filter chosen for it.
  struct TestPNG {
    var width: Int
    var height: Int
    var channels: Int
    var samples: [UInt8]

    /// The file: IHDR, the stream in IDAT chunks of `chunkSize` bytes, IEND; with `ancillary`,
    /// a tEXt chunk before the data and another after.
    func encoded(filters: [UInt8], chunkSize: Int, ancillary: Bool = false) -> [UInt8] {
      let stream = stream(filters: filters)
      let text: [(String, [UInt8])] = ancillary ? [("tEXt", Array("Comment\0visage".utf8))] : []
      return Self.file(header: header(), data: stream, chunkSize: chunkSize, before: text, after: text)
    }

    /// The IHDR chunk's 13 bytes.
    func header(depth: UInt8 = 8, color: UInt8? = nil, interlace: UInt8 = 0) -> [UInt8] {
      let type: UInt8 = color ?? [1: 0, 3: 2, 4: 6][channels]!
      return Self.bigEndian(UInt32(width)) + Self.bigEndian(UInt32(height)) + [depth, type, 0, 0, interlace]
    }

    /// The rows filtered (`filters[y]` for row y; fewer filters, fewer rows) and compressed.
    func stream(filters: [UInt8]) -> [UInt8] {
      let rowBytes = width * channels
      var filtered: [UInt8] = []
      for (y, filter) in filters.enumerated() {
        filtered.append(filter)
        for i in 0..<rowBytes {
          let x = Int(samples[y * rowBytes + i])
          let a = i >= channels ? Int(samples[y * rowBytes + i - channels]) : 0
          let b = y > 0 ? Int(samples[(y - 1) * rowBytes + i]) : 0
          let c = y > 0 && i >= channels ? Int(samples[(y - 1) * rowBytes + i - channels]) : 0
          let predicted =
            switch filter {
            case 1: a
            case 2: b
            case 3: (a + b) / 2
            case 4: Self.paeth(a, b, c)
            default: 0
            }
          filtered.append(UInt8(truncatingIfNeeded: x - predicted))
        }
      }
      let compressor = libdeflate_alloc_compressor(6)!
      defer { libdeflate_free_compressor(compressor) }
      var out = [UInt8](repeating: 0, count: libdeflate_zlib_compress_bound(compressor, filtered.count))
      let size = libdeflate_zlib_compress(compressor, filtered, filtered.count, &out, out.count)
      return Array(out.prefix(size))
    }

    /// The specification's Paeth predictor, written from its text.
    static func paeth(_ a: Int, _ b: Int, _ c: Int) -> Int {
      let p = a + b - c
      let (pa, pb, pc) = (abs(p - a), abs(p - b), abs(p - c))
      if pa <= pb && pa <= pc { return a }
      return pb <= pc ? b : c
    }

    /// A PNG file from its IHDR data and zlib stream.
    static func file(
      header: [UInt8], data: [UInt8], chunkSize: Int = 1 << 20, before: [(String, [UInt8])] = [],
      after: [(String, [UInt8])] = []
    ) -> [UInt8] {
      var bytes: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10] + chunk("IHDR", header)
      for (type, body) in before { bytes += chunk(type, body) }
      for start in stride(from: 0, to: max(data.count, 1), by: chunkSize) {
        bytes += chunk("IDAT", Array(data[start..<min(data.count, start + chunkSize)]))
      }
      for (type, body) in after { bytes += chunk(type, body) }
      return bytes + chunk("IEND", [])
    }

    static func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
      let typed = Array(type.utf8) + body
      return bigEndian(UInt32(body.count)) + typed + bigEndian(libdeflate_crc32(0, typed, typed.count))
    }

    /// A zlib stream whose header declares a window of 2^`log2` bytes (the check bits redone).
    static func withWindow(_ stream: [UInt8], log2: Int) -> [UInt8] {
      var bytes = stream
      bytes[0] = UInt8((log2 - 8) << 4 | 8)
      let level = Int(bytes[1] & 0xE0)
      bytes[1] = UInt8(level + (31 - (Int(bytes[0]) * 256 + level) % 31) % 31)
      return bytes
    }

    /// Every chunk's CRC recomputed, so that a change to a chunk's data is not caught by it.
    static func fixingCRCs(_ file: [UInt8]) -> [UInt8] {
      var bytes = file
      var offset = 8
      while offset + 12 <= bytes.count {
        let length =
          Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8
          | Int(bytes[offset + 3])
        let typed = Array(bytes[(offset + 4)..<(offset + 8 + length)])
        bytes.replaceSubrange(
          (offset + 8 + length)..<(offset + 12 + length), with: bigEndian(libdeflate_crc32(0, typed, typed.count)))
        offset += 12 + length
      }
      return bytes
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
      [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
  }
#endif
