import FuzzDriver
import VisageRuntime

/// A `.npy` file: magic, version, header dictionary and data, as `visage run` reads them.
public func fuzzNPY(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let data else { return 0 }
  let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
  // A tensor that parses must write back to a file that parses to the same tensor.
  guard let tensor = try? Tensor(npy: bytes) else { return 0 }
  guard let again = try? Tensor(npy: tensor.npy), again.shape == tensor.shape,
    again.values.elementsEqual(tensor.values, by: { $0.bitPattern == $1.bitPattern || ($0.isNaN && $1.isNaN) })
  else { fatalError("a parsed .npy tensor does not survive writing and reading back") }
  return 0
}

@main enum Harness {
  static func main() { runLibFuzzer(fuzzNPY) }
}
