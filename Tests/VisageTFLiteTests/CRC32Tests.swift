import Testing
import VisageTestSupport

@testable import VisageTFLite

/// The sliced CRC-32 against the bit-at-a-time one of the test zip writer, on lengths around its 8-byte
/// step and the four-way split's threshold, at every start alignment, and on zip's check
/// value.
@Suite struct CRC32Tests {
  @Test func slicedMatchesReference() {
    var random = RandomSource(seed: 32)
    let bytes = (0..<9000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    for start in 0..<8 {
      for length in Array(0..<40) + [63, 64, 65, 1000, 1023, 1024, 1025, 1031, 4096, 8191] {
        let slice = Array(bytes[start..<(start + length)])
        let fast = slice.withUnsafeBytes { CRC32.checksum($0) }
        #expect(fast == ZipWriter.crc32(slice), "start \(start) length \(length)")
      }
    }
    #expect(Array("123456789".utf8).withUnsafeBytes { CRC32.checksum($0) } == 0xCBF4_3926)
  }
}
