import Foundation
import VisageTFLite

/// File names that are not UTF-8, which Linux allows (`lat\xe9.png` from an old archive):
/// ArgumentParser would be handed each argument with every such byte made U+FFFD, which names
/// no file and tells `a\xe9.png` from `a\xe8.png` no more. So it is handed each argument's
/// `BytePath` string form instead, which is the argument itself when it is UTF-8; the
/// library opens that form by its bytes, messages show it with U+FFFD
/// (`BytePath(message).description`), and JSON writes it losslessly (`BytePath.json`).
enum FileNames {
  /// The arguments after the command's own name, in `BytePath` string form: the process's,
  /// or those `Visage.main(argc:argv:)` was handed.
  static var arguments: [String] {
    let (count, values) = given ?? (CommandLine.argc, CommandLine.unsafeArgv)
    return (1..<Int(count)).map { index in
      values[index].map { BytePath(bytes: UnsafeRawBufferPointer(start: $0, count: strlen($0))).string } ?? ""
    }
  }

  /// The arguments of a run started by `Visage.main(argc:argv:)` from a host process (the
  /// Python wheel's `visage`), whose own arguments are the interpreter's.
  nonisolated(unsafe) static var given: (Int32, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>)?
}

extension BytePath {
  /// The path as a JSON string: UTF-8 as itself, and each byte that is not part of UTF-8 as
  /// `\udcXX`, PEP 383's surrogate escape (Python's `os.fsencode(json.loads(line)["source"])`
  /// gives the bytes back). No Swift string holds a lone surrogate, so the escaped text is
  /// written verbatim.
  var json: JSON {
    let text = pieces.map { piece in
      switch piece {
      case .text(let text): JSON.string(text).description.dropFirst().dropLast()
      case .notUTF8(let bytes): Substring(bytes.map { "\\udc" + String($0, radix: 16) }.joined())
      }
    }
    return .verbatim("\"" + text.joined() + "\"")
  }
}
