import Foundation

/// Paths that open what an argument's bytes name when they are not UTF-8 (`RawFileNames`),
/// for the options that go on to Foundation or the library, which take paths as Strings:
/// `--model`, `--annotate`, `--crops`, `--output-dir`, `--dump-tensors`, `run`'s files,
/// `inspect`, `compare` and `bench --image`.
///
/// A String cannot hold such a byte, so the path given in its place reaches the file another
/// way (Linux, the only system whose file names may be other than UTF-8), through a
/// descriptor held open for the run and named `/proc/self/fd/N`:
/// - a file whose own name is UTF-8: its folder's descriptor, then the name;
/// - a folder, or a file to read whose own name is not UTF-8: its own descriptor;
/// - a `.task` bundle whose own name is not UTF-8: a link to it in a private folder, named as
///   the name reads, since the library knows a bundle by that suffix; the folder is removed
///   at exit and on SIGINT, SIGTERM and SIGHUP;
/// - a new file whose own name is not UTF-8 (an annotation): its folder's descriptor and the
///   name as it reads, which `writePNG` renames into place by its bytes (`newFileName`).
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

  /// `open` flags for a folder opened only to name things in it: Linux's `O_PATH`, which
  /// needs no permission to list the folder and which Glibc's Swift module leaves out
  /// (0o10000000 on x86-64 and AArch64); elsewhere reading, which needs that permission.
  #if os(Linux)
    static let folderFlags = Int32(0o10000000) | O_DIRECTORY | O_CLOEXEC
  #else
    static let folderFlags = O_RDONLY | O_DIRECTORY | O_CLOEXEC
  #endif

  /// The path for the value at `place`, which ArgumentParser decoded to `value`: `value`
  /// itself when its bytes are UTF-8, else one that reaches what they name.
  ///
  /// - Throws: `SetupError` when what the bytes name cannot be reached.
  static func path(_ value: String, at place: RawFileNames.Place, for use: Use = .existing) throws -> String {
    try path(value, bytes: RawFileNames.bytes(at: place, value: value), for: use)
  }

  /// `path(_:at:for:)` for a model reference, `file` or `bundle.task:entry`: the entry is
  /// kept as written after the file's path.
  static func modelReference(_ value: String, at place: RawFileNames.Place) throws -> String {
    guard let colon = value.lastIndex(of: ":"), value[..<colon].hasSuffix(".task") else {
      return try path(value, at: place)
    }
    let file = split(RawFileNames.bytes(at: place, value: value), of: value, at: colon)?.before
    return try path(String(value[..<colon]), bytes: file, for: .existing) + value[colon...]
  }

  /// `bytes`, the bytes of `value` when they are not UTF-8, before and after the ASCII
  /// character at `index`: decoding neither makes nor removes an ASCII character, so the nth
  /// of them falls at the same place in the text and in the bytes.
  static func split(_ bytes: [UInt8]?, of value: String, at index: String.Index) -> (
    before: [UInt8], after: [UInt8]
  )? {
    guard let bytes, let ascii = value[index].asciiValue else { return nil }
    let occurrence = value[..<index].count(where: { $0 == value[index] })
    let positions = bytes.indices.filter { bytes[$0] == ascii }
    guard occurrence < positions.count else { return nil }
    return (Array(bytes[..<positions[occurrence]]), Array(bytes[(positions[occurrence] + 1)...]))
  }

  /// The path for `text`, whose bytes are `bytes` when they are not UTF-8.
  static func path(_ text: String, bytes: [UInt8]?, for use: Use) throws -> String {
    #if os(Linux)
      guard let bytes, String(bytes: bytes, encoding: .utf8) == nil else { return text }
      return try withState { state in
        let key = Key(bytes: bytes, use: use)
        if let made = state.made[key] { return made }
        let made = try state.standIn(text, bytes: bytes, for: use)
        state.made[key] = made
        return made
      }
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
    // Bytes, not characters: a name that begins with a combining mark joins the `/` before
    // it into one character.
    var text = Array(message.utf8)
    for standIn in standIns.sorted(by: { $0.path.count > $1.path.count }) {
      var out: [UInt8] = []
      var index = 0
      while index < text.count {
        if standIn.isAt(index, of: text) {
          out += standIn.text.utf8
          index += standIn.path.count
        } else {
          out.append(text[index])
          index += 1
        }
      }
      text = out
    }
    return String(decoding: text, as: UTF8.self)
  }

  /// `path` as a JSON string naming what the user named, bytes that are not UTF-8 kept
  /// (`RawFileNames.json`).
  static func json(_ path: String) -> JSON {
    let bytes = Array(path.utf8)
    let standIns = withState { $0.standIns }
    guard let standIn = standIns.filter({ $0.isAt(0, of: bytes) }).max(by: { $0.path.count < $1.path.count }) else {
      return .string(path)
    }
    return RawFileNames.json(standIn.bytes + bytes.dropFirst(standIn.path.count))
  }

  fileprivate struct StandIn {
    /// The path given in place of the argument, or of its folder (ending in `/`), in UTF-8.
    let path: [UInt8]
    /// The argument's text (U+FFFD for each byte that is not UTF-8), and its bytes.
    let text: String
    let bytes: [UInt8]

    /// Whether it stands at `index` of `text`, whole: `/proc/self/fd/3` is not the start of
    /// `/proc/self/fd/30`.
    func isAt(_ index: Int, of text: [UInt8]) -> Bool {
      let end = index + path.count
      return text[index...].starts(with: path) && (end == text.count || !(48...57).contains(text[end]))
    }
  }

  fileprivate struct Key: Hashable {
    let bytes: [UInt8]
    let use: Use
  }

  fileprivate struct State {
    var standIns: [StandIn] = []
    var made: [Key: String] = [:]
    /// For each new file's stand-in path: its folder, opened, and its own name's bytes.
    var newFiles: [String: (folder: Int32, name: [UInt8])] = [:]
    var linkFolder: String?
  }

  /// Set up while the command reads its arguments and read by the threads that report, so
  /// behind one lock, each lookup or making whole under it (a `Mutex` needs macOS 15).
  nonisolated(unsafe) private static var current = State()
  private static let lock = NSLock()
  private static func withState<T>(_ body: (inout State) throws -> T) rethrows -> T {
    try lock.withLock { try body(&current) }
  }
}

#if os(Linux)
  extension RawPaths.State {
    private static let slash = UInt8(ascii: "/")

    mutating func standIn(_ text: String, bytes: [UInt8], for use: RawPaths.Use) throws -> String {
      var whole = bytes
      while whole.count > 1 && whole.last == Self.slash { whole.removeLast() }
      let trailing = whole.count < bytes.count ? "/" : ""
      let cut = whole.lastIndex(of: Self.slash)
      let folder = cut.map { $0 == 0 ? [Self.slash] : Array(whole[..<$0]) } ?? [UInt8(ascii: ".")]
      let name = cut.map { Array(whole[($0 + 1)...]) } ?? whole
      let failure = { (what: String) in SetupError("cannot \(what) '\(text)': \(String(cString: strerror(errno)))") }
      // A folder to write into is made whole, with its parents; a new file's, up to the file.
      // (What fails is found when the folder is opened.)
      if use == .folder { _ = makeFolders(whole) } else if use == .newFile { _ = makeFolders(folder) }
      var status = stat()
      let isFolder = stat(Self.cString(whole), &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
      let ownNameIsText = String(bytes: name, encoding: .utf8) != nil
      // A folder, or a file to read whose own name is not text: its own descriptor.
      if isFolder || (use == .existing && !ownNameIsText && !name.reversed().starts(with: ".task".utf8.reversed())) {
        let descriptor = open(Self.cString(whole), isFolder ? RawPaths.folderFlags : Int32(0o10000000) | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("open") }
        register(path: "/proc/self/fd/\(descriptor)", text: String(decoding: whole, as: UTF8.self), bytes: whole)
        return "/proc/self/fd/\(descriptor)" + trailing
      }
      // Held open for the whole run: the stand-in reaches the folder through it.
      let descriptor = open(Self.cString(folder), RawPaths.folderFlags)
      guard descriptor >= 0 else { throw failure("open the folder of") }
      let folderPath = "/proc/self/fd/\(descriptor)/"
      let folderText = String(decoding: folder, as: UTF8.self)
      register(path: folderPath, text: folderText == "/" ? "/" : folderText + "/", bytes: folder + [Self.slash])
      if let nameText = String(bytes: name, encoding: .utf8) { return folderPath + nameText + trailing }
      let path = folderPath + String(decoding: name, as: UTF8.self)
      if use == .newFile {
        newFiles[path] = (descriptor, name)
        register(path: path, text: text, bytes: bytes)
        return path
      }
      // A bundle to read: a link named as its name reads, through the folder's descriptor,
      // so the working folder is no matter.
      let link = try links() + "/\(standIns.count)-" + String(decoding: name, as: UTF8.self)
      guard symlink(Self.cString(Array(folderPath.utf8) + name), link) == 0 else { throw failure("link to") }
      RawPaths.LinkCleanup.add(link)
      register(path: link, text: String(decoding: whole, as: UTF8.self), bytes: whole)
      return link
    }

    /// The private folder of links, made on first use.
    private mutating func links() throws -> String {
      if let linkFolder { return linkFolder }
      var template = Array((NSTemporaryDirectory() + "/visage-names.XXXXXX").utf8CString)
      guard let made = mkdtemp(&template) else {
        throw SetupError(
          "cannot make a folder for links in \(NSTemporaryDirectory()): \(String(cString: strerror(errno)))")
      }
      linkFolder = String(cString: made)
      RawPaths.LinkCleanup.start(folder: linkFolder!)
      return linkFolder!
    }

    private mutating func register(path: String, text: String, bytes: [UInt8]) {
      if !standIns.contains(where: { $0.path == Array(path.utf8) }) {
        standIns.append(RawPaths.StandIn(path: Array(path.utf8), text: text, bytes: bytes))
      }
    }

    private static func cString(_ bytes: [UInt8]) -> [CChar] { bytes.map { CChar(bitPattern: $0) } + [0] }
  }

  extension RawPaths {
    /// Removes the links and their folder when the process ends: at exit, and on the signals
    /// that end a run from outside, where only `unlink` and `rmdir` may be called (so their
    /// paths are kept as C strings, made before the handler can see them).
    enum LinkCleanup {
      nonisolated(unsafe) private static var paths: [UnsafeMutablePointer<CChar>] = []
      nonisolated(unsafe) private static var count = 0

      /// Installs the handlers, for links in `folder`.
      static func start(folder: String) {
        paths = [strdup(folder)] + (0..<15).map { _ in strdup("")! }
        count = 1
        atexit { LinkCleanup.remove() }
        for signal in [SIGINT, SIGTERM, SIGHUP] {
          Glibc.signal(signal) { received in
            LinkCleanup.remove()
            Glibc.signal(received, SIG_DFL)
            raise(received)
          }
        }
      }

      /// Adds a link, to be removed before its folder; at most 15 (a command has fewer file
      /// options), the rest left to the folder's removal failing quietly.
      static func add(_ link: String) {
        guard count < paths.count else { return }
        free(paths[count])
        paths[count] = strdup(link)
        count += 1
      }

      private static func remove() {
        var index = count - 1
        while index >= 1 {
          unlink(paths[index])
          index -= 1
        }
        if count > 0 { rmdir(paths[0]) }
      }
    }
  }
#endif

/// Makes the folder `path` names (bytes, which need not be UTF-8) and its parents, as
/// `mkdir -p` does; nil, or why not in the system's words ("Not a directory": Foundation's
/// own reads "The operation could not be completed. (NSCocoaErrorDomain error 512.)").
func makeFolders(_ path: [UInt8]) -> String? {
  let slash = UInt8(ascii: "/")
  func cString(_ bytes: some Collection<UInt8>) -> [CChar] { bytes.map { CChar(bitPattern: $0) } + [0] }
  for end in path.indices.dropFirst() where path[end] == slash && path[end - 1] != slash {
    if mkdir(cString(path[..<end]), 0o777) != 0 && errno != EEXIST { return String(cString: strerror(errno)) }
  }
  if mkdir(cString(path), 0o777) != 0 && errno != EEXIST { return String(cString: strerror(errno)) }
  // EEXIST is also what a file of that name gives.
  var status = stat()
  guard stat(cString(path), &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
    return String(cString: strerror(ENOTDIR))
  }
  return nil
}
