import Testing
import Visage

struct MPImageTests {
  @Test func rawFormatsBecomeRGB() throws {
    let bgra: [UInt8] = [3, 2, 1, 9, 6, 5, 4, 9, 0, 0]  // 2 pixels, 2 bytes of row padding
    let image = try MPImage(width: 2, height: 1, bytesPerRow: 10, format: .bgra, bytes: bgra)
    #expect(image.pixels == [1, 2, 3, 4, 5, 6])
    let gray = try MPImage(width: 1, height: 2, bytesPerRow: 3, format: .gray, bytes: [7, 0, 0, 8])
    #expect(gray.pixels == [7, 7, 7, 8, 8, 8])
    let rgba = try MPImage(width: 1, height: 1, bytesPerRow: 4, format: .rgba, bytes: [1, 2, 3, 4])
    #expect(rgba.pixels == [1, 2, 3])
  }

  @Test func badBuffersAreErrors() {
    #expect(throws: MPImageError.bufferSize(expected: 12, actual: 3)) {
      try MPImage(width: 2, height: 2, rgb: [1, 2, 3])
    }
    #expect(throws: MPImageError.rowStride(bytesPerRow: 5, minimum: 6)) {
      try MPImage(width: 2, height: 1, bytesPerRow: 5, format: .rgb, bytes: [UInt8](repeating: 0, count: 6))
    }
    #expect(throws: MPImageError.dimensions(width: 0, height: 4)) {
      try MPImage(width: 0, height: 4, rgb: [])
    }
    #expect(throws: MPImageError.bufferSize(expected: 14, actual: 13)) {
      try MPImage(width: 2, height: 2, bytesPerRow: 8, format: .rgb, bytes: [UInt8](repeating: 0, count: 13))
    }
  }

  @Test func mirroredOrientationsAreRefused() throws {
    #expect(try MPImage.Orientation.right.rotationDegrees() == -270)
    #expect(throws: MPImageError.unsupportedOrientation(.upMirrored)) {
      try MPImage.Orientation.upMirrored.rotationDegrees()
    }
  }
}
