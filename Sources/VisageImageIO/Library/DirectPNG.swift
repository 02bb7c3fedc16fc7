// The common PNG decoded without libpng. Of libpng's 194 ms for a 12 MP photo, zlib's inflate took
// 76 ms and unfiltering most of the rest, a byte at a time (docs/speed.md): here libdeflate
// inflates (whole buffers, two to three times zlib's speed, which libpng cannot use) and rows are
// unfiltered a pixel at a time. LibraryCodec.swift tries this first and falls back to libpng.
#if !canImport(ImageIO)
  import CPNG
  import Visage

  /// 8-bit RGB or RGBA PNGs, not interlaced and without tRNS, decoded here: the chunks read and
  /// their CRCs checked, the image data inflated by libdeflate in one piece, and the rows
  /// unfiltered a pixel's channels at a time (`PNGFilters`); RGB rows in place, in the pixels'
  /// own buffer, so that a decode holds no second copy of the pixels. The pixels are those
  /// libpng gives with `visage_png_decode`'s transforms (alpha dropped), bit for bit
  /// (`DirectPNGTests`).
  ///
  /// Anything else (a palette chunk, a zlib window under 32 KiB, a chunk name that is not
  /// letters) and any damage (a bad CRC, a broken zlib stream, too little or too much image
  /// data, bytes after the stream, a missing IEND) returns nil, and libpng decodes the file
  /// from the start: every other layout and nearly every error is libpng's, as before. The one
  /// difference: libdeflate reads a few deflate codes that zlib calls invalid (length codes 286
  /// and 287, distance codes 30 and 31), so a stream damaged just so decodes here.
  enum DirectPNG {
    /// The image, or nil when libpng is to decode the file. Throws only the size checks'
    /// errors, as libpng's path would for the same header (`checkedPixelCount`).
    static func decode(_ bytes: [UInt8], limits: ImageLimits) throws -> MPImage? {
      try bytes.withUnsafeBufferPointer { data -> MPImage? in
        guard let file = Layout(data) else { return nil }
        let count = try checkedPixelCount(
          width: UInt32(file.width), height: UInt32(file.height), format: .png, limits: limits)
        // RGB rows are inflated into the pixels' buffer, two rows in, and unfiltered where they
        // lie (`Layout.decode`); the filter bytes make the filtered image `height` bytes longer.
        let inPlace = file.channels == 3
        let capacity = inPlace ? file.inPlaceOffset + file.filteredCount + slack : count
        var decoded = false
        let pixels = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
          decoded = file.decode(data, into: buffer.baseAddress!, inPlace: inPlace)
          initialized = count
        }
        return decoded ? try MPImage(width: file.width, height: file.height, rgb: pixels) : nil
      }
    }

    /// Bytes after the filtered image that a row's last pixel's reads may touch (five at most:
    /// an eight-byte read three bytes before the end).
    static let slack = 8

    /// What the chunks say: the header's size and samples per pixel, and where the image data
    /// lies. Nil for a layout this path does not take or a chunk that is not sound.
    struct Layout {
      var width = 0
      var height = 0
      /// Bytes a pixel: 3 (RGB) or 4 (RGBA).
      var channels = 0
      /// The IDAT chunks' data, in order (byte ranges of the file).
      var imageData: [Range<Int>] = []

      init?(_ data: UnsafeBufferPointer<UInt8>) {
        guard data.starts(with: ImageFormat.pngSignature) else { return nil }
        var sawHeader = false
        var imageDataEnded = false
        for chunk in PNGChunks(data) {
          // libpng refuses a chunk type that is not four ASCII letters.
          let name = data[chunk.typeStart..<(chunk.typeStart + 4)]
          guard name.allSatisfy({ (65...90).contains($0) || (97...122).contains($0) }) else { return nil }
          let type = String(decoding: name, as: UTF8.self)
          // An upper-case first letter (bit 5 clear): a chunk a decoder must understand.
          let critical = name.first! & 0x20 == 0
          let computed = libdeflate_crc32(0, data.baseAddress! + chunk.typeStart, chunk.checked.count)
          guard computed == chunk.storedCRC else { return nil }
          if !sawHeader {
            guard type == "IHDR", chunk.data.count == 13 else { return nil }
            guard readHeader(data, at: chunk.data.lowerBound) else { return nil }
            sawHeader = true
            continue
          }
          switch type {
          case "IDAT":
            guard !imageDataEnded else { return nil }
            imageData.append(chunk.data)
          case "IEND":
            guard !imageData.isEmpty else { return nil }
            return
          case "tRNS", "IHDR", "PLTE":
            // Transparency, and a palette (a suggestion in a true-colour file, which libpng
            // still checks: once only, never empty), are left to libpng.
            return nil
          default:
            // An unknown critical chunk is an error to libpng; ancillary ones change nothing here.
            guard !critical else { return nil }
            if !imageData.isEmpty { imageDataEnded = true }
          }
        }
        return nil  // the file ends before IEND
      }

      /// Reads IHDR's fields; false for any layout but 8-bit RGB or RGBA, not interlaced,
      /// with sides libpng accepts and this path's limits then check.
      private mutating func readHeader(_ data: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
        let (w, h) = (PNGChunks.bigEndian(data, start), PNGChunks.bigEndian(data, start + 4))
        let (depth, color) = (data[start + 8], data[start + 9])
        let (compression, filter, interlace) = (data[start + 10], data[start + 11], data[start + 12])
        guard w > 0, h > 0, w <= UInt32(Int32.max), h <= UInt32(Int32.max), depth == 8,
          compression == 0, filter == 0, interlace == 0
        else { return false }
        switch color {
        case 2: channels = 3
        case 6: channels = 4
        default: return false
        }
        (width, height) = (Int(w), Int(h))
        return true
      }

      /// The filtered image's size: each row with its filter byte.
      var filteredCount: Int { height * (1 + width * channels) }

      /// Where an RGB image's filtered rows start in its pixels' buffer: two rows in, so that
      /// the pixels of rows y and y + 1, unfiltered together, end before row y's filtered bytes.
      var inPlaceOffset: Int { 2 * width * channels }

      /// Inflates the image data and unfilters its rows into `pixels` (width × height × 3
      /// bytes; with `inPlace`, an RGB image's, `inPlaceOffset + filteredCount + slack` bytes,
      /// inflated into there). False when the stream is damaged or does not hold exactly the
      /// rows the header promises, with nothing after it.
      func decode(_ data: UnsafeBufferPointer<UInt8>, into pixels: UnsafeMutablePointer<UInt8>, inPlace: Bool) -> Bool {
        let rowBytes = width * channels
        let filtered = inPlace ? pixels + inPlaceOffset : .allocate(capacity: filteredCount + DirectPNG.slack)
        // RGBA rows are unfiltered into three rows of their own (a pair's two and the row above),
        // then their alpha dropped; the first row's prior row is zeros. (Zeroed, as are the
        // slack bytes below: reads past a row's end reach only lanes that are dropped, but then
        // never uninitialized memory.)
        let rowsCount = inPlace ? 0 : 3 * (rowBytes + DirectPNG.slack)
        let rows = UnsafeMutablePointer<UInt8>.allocate(capacity: rowsCount)
        rows.initialize(repeating: 0, count: rowsCount)
        let zeros = UnsafeMutablePointer<UInt8>.allocate(capacity: rowBytes + DirectPNG.slack)
        zeros.initialize(repeating: 0, count: rowBytes + DirectPNG.slack)
        defer {
          if !inPlace { filtered.deallocate() }
          rows.deallocate()
          zeros.deallocate()
        }
        guard inflate(data, into: filtered) else { return false }
        filtered.advanced(by: filteredCount).initialize(repeating: 0, count: DirectPNG.slack)
        /// Where row y's unfiltered bytes go: the pixels themselves for RGB.
        func target(_ y: Int) -> UnsafeMutablePointer<UInt8> {
          inPlace ? pixels + y * rowBytes : rows + (y % 3) * (rowBytes + DirectPNG.slack)
        }
        var y = 0
        while y < height {
          let row = filtered + y * (1 + rowBytes)
          let (filter, raw, next) = (row[0], UnsafePointer(row + 1), row + 1 + rowBytes)
          guard filter <= 4 else { return false }
          let prior = y == 0 ? UnsafePointer(zeros) : UnsafePointer(target(y - 1))
          // Two Paeth rows in a row, the usual case in photos, are unfiltered together. In
          // place, rows y and y + 1 end in the pixels before row y's filtered bytes begin, so
          // nothing is written over bytes still to be read.
          let count: Int
          if filter == 4, y + 1 < height, next[0] == 4 {
            PNGFilters.unfilterPaethPair(
              raw, UnsafePointer(next + 1), prior: prior, into: target(y), target(y + 1), rowBytes: rowBytes,
              channels: channels)
            count = 2
          } else {
            PNGFilters.unfilter(filter, raw, prior: prior, into: target(y), rowBytes: rowBytes, channels: channels)
            count = 1
          }
          if !inPlace {
            for r in y..<(y + count) {
              let (rgba, out) = (target(r), pixels + r * width * 3)
              for x in 0..<width {
                (out[3 * x], out[3 * x + 1], out[3 * x + 2]) = (rgba[4 * x], rgba[4 * x + 1], rgba[4 * x + 2])
              }
            }
          }
          y += count
        }
        return true
      }

      /// The IDAT chunks' zlib stream inflated into `out`: true when it holds exactly
      /// `filteredCount` bytes and ends with the last chunk's last byte (its Adler-32 checked).
      private func inflate(_ data: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) -> Bool {
        // A stream whose header declares a window under 32 KiB is left to libpng: zlib holds it
        // to that window, libdeflate does not. (libdeflate also reads a few codes zlib calls
        // invalid, such as length codes 286 and 287, rather than refusing the stream: a file
        // damaged just so decodes here where libpng would fail.)
        guard let start = imageData.first(where: { !$0.isEmpty })?.lowerBound, data[start] >> 4 == 7 else {
          return false
        }
        guard let decompressor = libdeflate_alloc_decompressor() else { return false }
        defer { libdeflate_free_decompressor(decompressor) }
        func run(_ stream: UnsafeRawPointer, _ size: Int) -> Bool {
          var (read, written) = (0, 0)
          let result = libdeflate_zlib_decompress_ex(decompressor, stream, size, out, filteredCount, &read, &written)
          return result == LIBDEFLATE_SUCCESS && read == size && written == filteredCount
        }
        // libdeflate takes the stream in one piece. Encoders write IDAT chunks of 8 KiB (libpng)
        // or 64 KiB (Pillow), so the chunks are usually joined first: one copy of the
        // compressed data.
        if imageData.count == 1 { return run(data.baseAddress! + imageData[0].lowerBound, imageData[0].count) }
        var joined: [UInt8] = []
        joined.reserveCapacity(imageData.reduce(0) { $0 + $1.count })
        for chunk in imageData { joined += data[chunk] }
        return joined.withUnsafeBytes { run($0.baseAddress!, $0.count) }
      }
    }
  }
#endif
