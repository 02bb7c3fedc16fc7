import Foundation

/// Paths that open what an argument's bytes name when they are not UTF-8 (`RawFileNames`),
/// for the options that go on to Foundation or the library, which take paths as Strings:
/// `--model`, `--annotate`, `--crops`, `--output-dir`, `--dump-tensors`, `run`'s inputs,
/// `inspect`, `compare` and `bench --image`.
///
/// A String cannot hold such a byte, so the path given in its place reaches the file another
/// way (Linux, the only system whose file names may be other than UTF-8):
/// - its folder is opened by its bytes and held open, and `/proc/self/fd/N/` stands for it,
///   followed by the file's own name when that is UTF-8;
/// - a file or folder whose own name is not UTF-8 is reached through a link to it, in a
///   private folder removed at exit, named as the name reads (so `.task` stays a suffix);
/// - a new file whose own name is not UTF-8 (an annotation) gets its folder's stand-in and
///   the name as it reads, and `writePNG` renames it into place by its bytes (`newFileName`).
///
/// Messages and JSON name the stand-ins as the user did (`shown`, `json`).
enum RawPaths {
  /// What the path is for.
  enum Use {
    /// Something to read, or a folder that must be there.
    case existing
    /// A folder to write into, made (with its parents) when it is missing.
    case folder
    /// A file to write.
    case newFile
  }

  private struct StandIn {
    /// The path given in place of the argument, or of its folder (ending in `/`).
    let path: String
    /// The argument's text (U+FFFD for each byte that is not UTF-8), and its bytes.
    let text: String
    let bytes: [UInt8]
  }

  private struct State {
    var standIns: [StandIn] = []
    /// The paths already made, by argument text and use.
    var made: [String: String] = [:]
    /// For each new file's stand-in path: its folder, opened, and its own name's bytes.
    var newFiles: [String: (folder: Int32, name: [UInt8])] = [:]
    var linkFolder: String?
  }

  /// `open` flags for a folder opened only to name things in it: Linux's `O_PATH`, which
  /// needs no permission to list the folder and which Glibc's Swift module leaves out
  /// (0o10000000 on x86-64 and AArch64); elsewhere, reading.
  #if os(Linux)
    static let folderFlags = Int32(0o10000000) | O_DIRECTORY | O_CLOEXEC
  #else
    static let folderFlags = O_RDONLY | O_DIRECTORY | O_CLOEXEC
  #endif

  /// Set up while the command reads its arguments and read by the threads that report, so
  /// behind a lock (a `Mutex` needs macOS 15).
  nonisolated(unsafe) private static var current = State()
  private static let lock = NSLock()
  private static func withState<T>(_ body: (inout State) -> T) -> T { lock.withLock { body(&current) } }

  /// The path for `argument` (a whole argument, as ArgumentParser decoded it): the argument
  /// itself when it is UTF-8, else one that reaches what its bytes name.
  static func path(_ argument: String, for use: Use = .existing) -> String {
    path(argument, bytes: RawFileNames.bytes(of: [argument])[0], for: use)
  }

  /// `path(_:for:)` for a model reference, `file` or `bundle.task:entry`: the entry is kept
  /// as written after the file's path.
  static func modelReference(_ argument: String) -> String {
    guard let colon = argument.lastIndex(of: ":"), argument[..<colon].hasSuffix(".task") else { return path(argument) }
    let file = bytes(of: argument, splitAt: colon)?.before
    return path(String(argument[..<colon]), bytes: file, for: .existing) + argument[colon...]
  }

  /// The bytes of `argument`, when they are not UTF-8, before and after the ASCII character at
  /// `index`: decoding neither makes nor removes an ASCII character, so the nth of them falls
  /// at the same place in the text and in the bytes.
  static func bytes(of argument: String, splitAt index: String.Index) -> (before: [UInt8], after: [UInt8])? {
    guard let bytes = RawFileNames.bytes(of: [argument])[0], let ascii = argument[index].asciiValue else { return nil }
    let occurrence = argument[..<index].count(where: { $0 == argument[index] })
    let positions = bytes.indices.filter { bytes[$0] == ascii }
    guard occurrence < positions.count else { return nil }
    let cut = positions[occurrence]
    return (Array(bytes[..<cut]), Array(bytes[(cut + 1)...]))
  }

  /// The path for `text`, whose bytes are `bytes` when they are not UTF-8.
  static func path(_ text: String, bytes: [UInt8]?, for use: Use) -> String {
    #if os(Linux)
      guard let bytes, !bytes.isEmpty, String(bytes: bytes, encoding: .utf8) == nil else { return text }
      let key = "\(use):" + text
      if let made = withState({ $0.made[key] }) { return made }
      let made = standIn(text, bytes: bytes, for: use) ?? text
      withState { $0.made[key] = made }
      return made
    #else
      return text
    #endif
  }

  /// The own name's bytes of a new file that `path(_:for: .newFile)` gave `path` for, and its
  /// folder, opened; nil for any other path.
  static func newFileName(_ path: String) -> (folder: Int32, name: [UInt8])? {
    withState { $0.newFiles[path] }
  }

  /// `message` with each stand-in put as the user wrote it.
  static func shown(_ message: String) -> String {
    let standIns = withState { $0.standIns }
    guard !standIns.isEmpty else { return message }
    var text = message
    for standIn in standIns.sorted(by: { $0.path.count > $1.path.count }) {
      text = text.replacingOccurrences(of: standIn.path, with: standIn.text)
    }
    return text
  }

  /// `path` as a JSON string naming what the user named, bytes that are not UTF-8 kept
  /// (`RawFileNames.json`).
  static func json(_ path: String) -> JSON {
    let standIns = withState { $0.standIns }
    guard let standIn = standIns.filter({ path.hasPrefix($0.path) }).max(by: { $0.path.count < $1.path.count }) else {
      return .string(path)
    }
    return RawFileNames.json(standIn.bytes + Array(path.dropFirst(standIn.path.count).utf8))
  }

  #if os(Linux)
    private static let slash = UInt8(ascii: "/")

    private static func standIn(_ text: String, bytes: [UInt8], for use: Use) -> String? {
      var whole = bytes
      while whole.count > 1 && whole.last == slash { whole.removeLast() }
      let trailing = whole.count < bytes.count ? "/" : ""
      let cut = whole.lastIndex(of: slash)
      let folder = cut.map { $0 == 0 ? [slash] : Array(whole[..<$0]) } ?? [UInt8(ascii: ".")]
      let name = cut.map { Array(whole[($0 + 1)...]) } ?? whole
      // A folder to write into is made whole; a new file's, up to the file.
      if use == .folder { makeFolders(whole) } else if use == .newFile { makeFolders(folder) }
      // Held open for the whole run: the stand-in reaches the folder through it.
      let descriptor = open(folder.map { CChar(bitPattern: $0) } + [0], folderFlags)
      guard descriptor >= 0 else { return nil }
      let folderPath = "/proc/self/fd/\(descriptor)/"
      let folderText = String(decoding: folder, as: UTF8.self)
      register(StandIn(path: folderPath, text: folderText == "/" ? "/" : folderText + "/", bytes: folder + [slash]))
      if let nameText = String(bytes: name, encoding: .utf8) { return folderPath + nameText + trailing }
      let nameText = String(decoding: name, as: UTF8.self)
      var status = stat()
      let isFolder =
        fstatat(descriptor, name.map { CChar(bitPattern: $0) } + [0], &status, 0) == 0
        && status.st_mode & S_IFMT == S_IFDIR
      if use == .newFile && !isFolder {
        let path = folderPath + nameText
        withState { $0.newFiles[path] = (descriptor, name) }
        register(StandIn(path: path, text: text, bytes: bytes))
        return path
      }
      // A link to it through the folder's descriptor, so the run's working folder is no matter.
      guard let links = linkFolder() else { return nil }
      let link = links + "/\(withState { $0.standIns.count })-" + nameText
      let target = Array(folderPath.utf8) + name
      guard symlink(target.map { CChar(bitPattern: $0) } + [0], link) == 0 else { return nil }
      register(StandIn(path: link, text: String(decoding: whole, as: UTF8.self), bytes: whole))
      return link + trailing
    }

    /// Makes the folder `bytes` names and its parents, as `mkdir -p` does; what fails is found
    /// when the folder is used.
    private static func makeFolders(_ bytes: [UInt8]) {
      for end in bytes.indices.dropFirst() where bytes[end] == slash {
        mkdir(bytes[..<end].map { CChar(bitPattern: $0) } + [0], 0o777)
      }
      mkdir(bytes.map { CChar(bitPattern: $0) } + [0], 0o777)
    }

    /// The private folder of links, made on first use and removed when the process exits.
    private static func linkFolder() -> String? {
      withState { state in
        if let folder = state.linkFolder { return folder }
        var template = Array((NSTemporaryDirectory() + "/visage-names.XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { return nil }
        let folder = String(cString: made)
        state.linkFolder = folder
        linksToRemove = folder
        atexit { if let folder = linksToRemove { try? FileManager.default.removeItem(atPath: folder) } }
        return folder
      }
    }

    private static func register(_ standIn: StandIn) {
      withState { state in
        if !state.standIns.contains(where: { $0.path == standIn.path }) { state.standIns.append(standIn) }
      }
    }
  #endif
}

/// The link folder for the exit handler, which cannot capture (a C function pointer); set once,
/// under `RawPaths.lock`, before the handler is installed.
nonisolated(unsafe) private var linksToRemove: String?
