#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// libFuzzer's entry point for a program that has its own `main` (SwiftPM gives every
/// executable one, so libFuzzer's `main` is never linked: `Tools/fuzz.sh` links
/// `libclang_rt.fuzzer_no_main` instead, and each harness's `main` calls this).
@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(
  _ argc: UnsafeMutablePointer<CInt>,
  _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
  _ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// Runs libFuzzer with this process's arguments on `test`, then exits with its status.
public func runLibFuzzer(_ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
  var argc = CommandLine.argc
  var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
  exit(runFuzzerDriver(&argc, &argv, test))
}
