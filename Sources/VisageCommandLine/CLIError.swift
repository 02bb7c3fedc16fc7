/// A failure of one input that the command line itself finds, such as a frame rate it cannot
/// use or an annotation it may not write: reported on the input's line, and the batch goes on.
struct CLIError: Error, CustomStringConvertible {
  let description: String

  init(_ description: String) { self.description = description }
}
