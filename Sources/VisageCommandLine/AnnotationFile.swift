import Foundation
import Visage
import VisageImageIO
import VisageTFLite

/// Writes an annotated copy of an input as PNG, making its folder if need be.
///
/// What is at `path` must be nothing or a regular file: a symbolic link, device, FIFO or
/// folder there is refused, never followed nor replaced (`--annotate /dev/null` must not turn
/// the device into a file, nor a link send the PNG elsewhere). The PNG goes to a new file
/// beside the target, created exclusively and without following links, every write and the
/// close checked, then renamed over the target: a reader never sees half an image, and a
/// full disk is an error rather than a short file.
func writeAnnotation(_ canvas: Canvas, to path: String) throws {
  try writePNG(canvas.image(), to: path)
}

/// Writes an image as PNG at `path` as `writeAnnotation` does (a face crop, say).
func writePNG(_ image: MPImage, to path: String) throws {
  let png = try PNG.encode(image)
  // The file as its folder, opened, and its own name's bytes (`BytePath`): every step below
  // is taken relative to that folder. (What fails to be made is found when it is opened.)
  let (folderPath, ownName) = BytePath(path).folderAndName
  _ = folderPath.makeFolders()
  let folder = folderPath.open(folderFlags)
  guard folder >= 0 else { throw annotationError(path, errno) }
  defer { close(folder) }
  let name = ownName.map { CChar(bitPattern: $0) }
  let temporary = name + Array(".\(getpid())-\(UInt32.random(in: 0...UInt32.max)).partial".utf8CString)
  try refuseAnythingButAFile(in: folder, named: name + [0], path: path)
  let descriptor = openat(folder, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
  guard descriptor >= 0 else { throw annotationError(path, errno) }
  var written = 0
  while written < png.count {
    let count = png.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, png.count - written) }
    if count < 0 && errno == EINTR { continue }
    guard count > 0 else {
      let code = errno
      close(descriptor)
      unlinkat(folder, temporary, 0)
      throw annotationError(path, code)
    }
    written += count
  }
  guard close(descriptor) == 0 else {
    let code = errno
    unlinkat(folder, temporary, 0)
    throw annotationError(path, code)
  }
  // Checked again just before the rename, which would replace a link or device itself (not
  // what it points to) if one appeared in between.
  do { try refuseAnythingButAFile(in: folder, named: name + [0], path: path) } catch {
    unlinkat(folder, temporary, 0)
    throw error
  }
  guard renameat(folder, temporary, folder, name + [0]) == 0 else {
    let code = errno
    unlinkat(folder, temporary, 0)
    throw annotationError(path, code)
  }
}

/// `open` flags for a folder opened only to name things in it: Linux's `O_PATH` (which Glibc's
/// Swift module leaves out), which needs no permission to list the folder; elsewhere reading.
#if os(Linux)
  private let folderFlags = Int32(0o10000000) | O_DIRECTORY | O_CLOEXEC
#else
  private let folderFlags = O_RDONLY | O_DIRECTORY | O_CLOEXEC
#endif

/// Throws unless `name` in `folder` is absent or a regular file, looking at the name itself,
/// not at what a link there points to.
private func refuseAnythingButAFile(in folder: Int32, named name: [CChar], path: String) throws {
  var status = stat()
  guard fstatat(folder, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else {
    if errno == ENOENT { return }
    throw annotationError(path, errno)
  }
  guard status.st_mode & S_IFMT == S_IFREG else {
    throw CLIError(
      "cannot write the annotated image '\(path)': something other than a regular file is there (a link, folder or device); it is left alone"
    )
  }
}

private func annotationError(_ path: String, _ code: Int32) -> CLIError {
  CLIError("cannot write the annotated image '\(path)': \(String(cString: strerror(code)))")
}
