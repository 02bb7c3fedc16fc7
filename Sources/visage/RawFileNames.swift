import ArgumentParser
import Foundation
import VisageService

/// File names that are not UTF-8, which Linux allows (`lat\xe9.png` from an old archive).
/// ArgumentParser hands over each argument decoded with every such byte made U+FFFD, which
/// names no file; the bytes are found again in `argv`, the file is opened by them, and its
/// `source` is written in JSON losslessly (docs/cli.md, "File names that are not UTF-8").
///
/// An argument is found by its place, not its text (`lat\xe9.png` and `lat\xe8.png` read the
/// same): `argv` is sorted into option values and positional values as ArgumentParser sorts
/// it, from the running command's description of its options.
enum RawFileNames {
  /// Where a value stands on the command line.
  enum Place {
    /// The `occurrence`th value given to the option with this long name (`--name value` or
    /// `--name=value`).
    case option(String, occurrence: Int = 0)
    /// The `index`th positional value, after the subcommand's name.
    case positional(Int)
  }

  /// The command being run, which `main` sets once the arguments are parsed and before any
  /// value is looked up.
  nonisolated(unsafe) static var command: (any ParsableCommand.Type)?

  /// The bytes of the value at `place`, when they are not UTF-8 and ArgumentParser decoded
  /// them to `value`; nil otherwise.
  static func bytes(at place: Place, value: String) -> [UInt8]? {
    let found: [UInt8]?
    switch place {
    case .option(let name, let occurrence):
      found = layout.options[name].flatMap { occurrence < $0.count ? $0[occurrence] : nil }
    case .positional(let index): found = index < layout.positionals.count ? layout.positionals[index] : nil
    }
    guard let found, String(bytes: found, encoding: .utf8) == nil, String(decoding: found, as: UTF8.self) == value
    else { return nil }
    return found
  }

  /// `bytes(at:value:)` for positional values from the first on.
  static func bytes(ofPositionals values: [String]) -> [[UInt8]?] {
    values.indices.map { bytes(at: .positional($0), value: values[$0]) }
  }

  /// `argv` sorted: each option's values by its long name, and the positional values.
  private static let layout: (options: [String: [[UInt8]]], positionals: [[UInt8]]) = {
    let argv = (1..<Int(CommandLine.argc)).map { index -> [UInt8] in
      guard let argument = CommandLine.unsafeArgv[index] else { return [] }
      return Array(UnsafeRawBufferPointer(start: argument, count: strlen(argument)))
    }
    guard let command, let names = valueTakingOptions(of: command),
      let start = argv.firstIndex(of: Array(command._commandName.utf8))
    else { return ([:], []) }
    var options: [String: [[UInt8]]] = [:]
    var positionals: [[UInt8]] = []
    var index = start + 1
    var afterTerminator = false
    while index < argv.count {
      let argument = argv[index]
      index += 1
      if afterTerminator || argument.first != UInt8(ascii: "-") || argument.count == 1 {
        positionals.append(argument)
      } else if argument == Array("--".utf8) {
        afterTerminator = true
      } else {
        // `--name=value`, `--name value` or `-n value`; anything else is a flag.
        let equals = argument.starts(with: Array("--".utf8)) ? argument.firstIndex(of: UInt8(ascii: "=")) : nil
        let flag = String(decoding: argument[..<(equals ?? argument.endIndex)], as: UTF8.self)
        guard let name = names[flag] else { continue }
        if let equals {
          options[name, default: []].append(Array(argument[(equals + 1)...]))
        } else if index < argv.count {
          options[name, default: []].append(argv[index])
          index += 1
        }
      }
    }
    return (options, positionals)
  }()

  /// The options of `command` that take a value, by each way of writing them (`--model`,
  /// `-m`), each giving its first long name; from ArgumentParser's description of the
  /// command, the one `--experimental-dump-help` prints.
  private static func valueTakingOptions(of command: any ParsableCommand.Type) -> [String: String]? {
    struct Help: Decodable {
      struct Command: Decodable { let arguments: [Argument]? }
      struct Argument: Decodable {
        struct Name: Decodable { let kind: String, name: String }
        let kind: String
        let names: [Name]?
      }
      let command: Command
    }
    guard let help = try? JSONDecoder().decode(Help.self, from: Data(command._dumpHelp().utf8)) else { return nil }
    var names: [String: String] = [:]
    for argument in help.command.arguments ?? [] where argument.kind == "option" {
      let all = argument.names ?? []
      guard let long = all.first(where: { $0.kind == "long" })?.name else { continue }
      for name in all { names[(name.kind == "long" ? "--" : "-") + name.name] = long }
    }
    return names
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
