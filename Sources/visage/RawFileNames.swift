import Foundation
import VisageService

/// File names that are not UTF-8, which Linux allows (`lat\xe9.png` from an old archive).
/// ArgumentParser hands over each argument decoded with every such byte made U+FFFD, which
/// names no file; the bytes are found again in `argv`, the file is opened by them, and its
/// `source` is written in JSON losslessly (docs/cli.md, "File names that are not UTF-8").
enum RawFileNames {
  /// The arguments that hold U+FFFD once decoded, in order: as ArgumentParser decodes them,
  /// and their bytes when they are not UTF-8 (a name may hold U+FFFD itself).
  private static let arguments: [(text: String, bytes: [UInt8]?)] = (1..<Int(CommandLine.argc)).compactMap {
    guard let argument = CommandLine.unsafeArgv[$0] else { return nil }
    let bytes = UnsafeRawBufferPointer(start: argument, count: strlen(argument)).map { $0 }
    let text = String(decoding: bytes, as: UTF8.self)
    return text.contains("\u{FFFD}") ? (text, String(bytes: bytes, encoding: .utf8) == nil ? bytes : nil) : nil
  }

  /// The bytes of each of `values` (arguments, in their order on the command line) that is
  /// not UTF-8, `nil` for the others: those of the next argument that decodes to the value.
  static func bytes(of values: [String]) -> [[UInt8]?] {
    var next = 0
    return values.map { value in
      guard value.contains("\u{FFFD}"), let found = arguments[next...].firstIndex(where: { $0.text == value }) else {
        return nil
      }
      next = found + 1
      return arguments[found].bytes
    }
  }

  /// `bytes` as a JSON string: UTF-8 as itself, and each byte that is not part of UTF-8 as
  /// `\udcXX`, PEP 383's surrogate escape (Python's `os.fsencode(json.loads(line)["source"])`
  /// gives the bytes back). No Swift string holds a lone surrogate, so the escaped text is
  /// written verbatim.
  static func json(_ bytes: [UInt8]) -> JSON {
    var text = ""
    var valid = String.UnicodeScalarView()
    var parser = Unicode.UTF8.ForwardParser()
    var iterator = bytes.makeIterator()
    var offset = 0
    func flush() {
      text += JSON.string(String(valid)).description.dropFirst().dropLast()
      valid = String.UnicodeScalarView()
    }
    while true {
      switch parser.parseScalar(from: &iterator) {
      case .valid(let encoded):
        valid.append(Unicode.UTF8.decode(encoded))
        offset += encoded.count
      case .error(let length):
        flush()
        for byte in bytes[offset..<(offset + length)] { text += "\\udc" + String(byte, radix: 16) }
        offset += length
      case .emptyInput:
        flush()
        return .verbatim("\"" + text + "\"")
      }
    }
  }
}
