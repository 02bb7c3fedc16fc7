import Testing
import Visage

/// The errors the Apple-only initializers throw (Sources/Visage/Apple) are built and described
/// by platform-independent code, checked here; the initializers themselves are only typechecked
/// (.ci/typecheck-apple).
struct MPImageErrorTests {
  @Test func pixelFormatsAreNamedByTheirFourCharacterCode() {
    let description = MPImageError.unsupportedPixelFormat(0x7834_3230).description
    #expect(description.hasPrefix("unsupported pixel format 'x420': "))
    #expect(description.contains("'BGRA'") && description.contains("'420v'"))
    // Codes whose bytes are not printable ASCII (the small numeric formats) print in hex.
    #expect(MPImageError.unsupportedPixelFormat(32).description.hasPrefix("unsupported pixel format 0x20:"))
  }

  @Test func unreadableSourcesSayWhy() {
    #expect(MPImageError.unreadableSource("no CGImage").description == "cannot read the image: no CGImage")
  }
}
