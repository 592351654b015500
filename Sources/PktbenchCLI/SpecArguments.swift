import CodecRegistry
import PacketKit
import SpecCodecs

/// `--spec FILE` (repeatable, on any command): loads each spec file and
/// adds its codec to the installed ones for the run (one named as an
/// installed codec replaces it), before the command line is parsed (the
/// codecs are read while parsing: help texts name them). Returns the
/// arguments without them. A bad spec file is one line naming the file,
/// its line and the key, and exit status 64.
enum SpecArguments {
  /// The files loaded, for command lines that reproduce this run.
  nonisolated(unsafe) static var loaded: [String] = []

  static func register(_ arguments: [String]) throws(CommandFailure) -> [String] {
    var rest: [String] = []
    var added: [CodecCalls] = []
    var index = arguments.startIndex
    while index < arguments.endIndex {
      let argument = arguments[index]
      index += 1
      if argument == "--" {
        rest += arguments[(index - 1)...]
        break
      }
      var path: String?
      if argument.hasPrefix("--spec=") {
        path = String(argument.dropFirst("--spec=".count))
      } else if argument == "--spec" {
        guard index < arguments.endIndex else { throw CommandFailure("--spec needs a file", status: 64) }
        path = arguments[index]
        index += 1
      }
      guard let path else {
        rest.append(argument)
        continue
      }
      do {
        added.append(.bound(SpecProgram(try SpecLoader.load(path: path)).codec()))
        loaded.append(path)
      } catch {
        throw CommandFailure(error.description, status: 64)
      }
    }
    if !added.isEmpty { Codecs.add(added) }
    return rest
  }
}
