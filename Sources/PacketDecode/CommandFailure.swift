/// A failure a command reports in one line, with its exit status
/// (`ExitStatus`). Most are about the command line, so that is the default.
public struct CommandFailure: Error, CustomStringConvertible {
  public var message: String
  public var status: Int32

  public var description: String { message }

  public init(_ message: String, status: Int32 = ExitStatus.usage) {
    self.message = message
    self.status = status
  }
}
