import Foundation
import Testing
import VisageTFLite

/// `BytePath`: awkward names (bytes that are not UTF-8, a newline, a name that looks like a
/// flag, NUL in a string) survive the string form and name the same file to read, write and
/// make folders at.
@Suite struct BytePathTests {
  static let names: [[UInt8]] = [
    Array("lat".utf8) + [0xE9] + Array(".png".utf8), [0xE8, 0xFF], Array("two\nlines.png".utf8),
    Array("--model".utf8), Array("caf\u{E9}/\u{FFFD}.png".utf8), Array("a".utf8) + [0xCC] + Array("/\u{301}p".utf8),
    Array("\u{F7E9}".utf8), [0xC3],
  ]

  @Test func theStringFormGivesTheBytesBack() {
    for bytes in Self.names {
      let path = BytePath(bytes: bytes)
      #expect(BytePath(path.string).bytes == bytes, "\(bytes)")
      #expect(path.description == String(decoding: bytes, as: UTF8.self))
    }
    // UTF-8 is its own string form; a NUL not followed by U+0080...U+00FF stays itself.
    #expect(BytePath(bytes: Array("caf\u{E9}.png".utf8)).string == "caf\u{E9}.png")
    #expect(BytePath("a\0b\0").bytes == [0x61, 0, 0x62, 0])
    #expect(BytePath("\0\0\u{E9}").bytes == [0, 0xE9])
    #expect(BytePath(bytes: [0x61, 0xE8, 0xFF]).pieces == [.text("a"), .notUTF8([0xE8]), .notUTF8([0xFF])])
  }

  @Test func filesAndFoldersAreReachedByTheirBytes() throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("bytepath-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: root) }
    let folder = BytePath(root + "/").bytes + [0xE9] + Array("\n-x/".utf8)
    for bytes in Self.names where !bytes.contains(UInt8(ascii: "/")) {
      let path = BytePath(BytePath(bytes: folder + bytes).string)
      #expect(path.folderAndName.folder.makeFolders() == nil)
      #expect(!path.exists)
      #expect(path.write(bytes) == nil)
      #expect(try path.contents() == bytes)
      #expect(path.exists && !path.isFolder && path.folderAndName.folder.isFolder)
      #expect(path.folderAndName.name == bytes)
      #expect(throws: BytePath.ReadFailure.tooLarge(bytes: bytes.count)) { try path.contents(limit: bytes.count - 1) }
    }
    // A folder is not read, and a file is no folder to make.
    #expect(throws: BytePath.ReadFailure.self) { try BytePath(bytes: folder).contents() }
    #expect(BytePath(bytes: folder + Self.names[0]).makeFolders() == "Not a directory")
    #expect(BytePath(bytes: folder + Self.names[0] + Array("/sub".utf8)).makeFolders() == "Not a directory")
    #expect(BytePath("/").folderAndName.folder == BytePath("/") && BytePath("x//").folderAndName.name == [0x78])
  }
}
