import Foundation

/// Standard base64 (RFC 4648 §4, with padding) as image records and JSON bodies carry images,
/// read strictly: a character outside the alphabet is named with its offset instead of skipped,
/// so that base64url or damaged data is not decoded into a wrong image.
public enum StrictBase64 {
  /// Why a text is not base64, in a sentence naming the field.
  public struct DecodingError: Error, Equatable, CustomStringConvertible {
    public let description: String
  }

  /// The bytes `text` encodes; `field` names it in the error.
  public static func decode(_ text: String, field: String) throws(DecodingError) -> [UInt8] {
    let utf8 = Array(text.utf8)
    for (offset, byte) in utf8.enumerated() where !isAlphabet(byte) {
      let shown = byte < 0x80 ? "'\(Character(Unicode.Scalar(byte)))'" : "a non-ASCII byte"
      let hint =
        byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") ? " (base64url is not accepted: use + and /)" : ""
      throw DecodingError(description: "\(field) is not base64: \(shown) at offset \(offset)\(hint)")
    }
    guard let data = Data(base64Encoded: Data(utf8)) else {
      throw DecodingError(
        description: "\(field) is not base64: its length or padding is wrong (\(utf8.count) characters)")
    }
    return [UInt8](data)
  }

  private static func isAlphabet(_ b: UInt8) -> Bool {
    switch b {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"):
      true
    case UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="): true
    default: false
    }
  }
}
