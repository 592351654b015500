import Foundation
import PacketDecode
import PacketKit
import SpecCodecs

/// `--spec FILE.ksy` (repeatable, on any command): loads each Kaitai
/// Struct spec and adds its codec to the installed ones for the run (one
/// named as an installed codec replaces it), before the command line is
/// parsed (the codecs are read while parsing: help texts name them).
/// `--ksy-path DIR` or `-I DIR` (repeatable), then `KSPATH`, are where an
/// absolute import (`/network/ipv4`) is looked for, as `ksc -I` does.
/// Returns the run and the arguments without them. A bad spec file is one line naming
/// the file, its line and the key, and exit status 64.
enum SpecArguments {
  static func register(_ arguments: [String], codecs: CodecSet) throws(CommandFailure) -> (
    run: CommandRun, arguments: [String]
  ) {
    var rest: [String] = []
    var specs: [String] = []
    var searchPaths: [String] = []
    var loaded: [String] = []
    var index = arguments.startIndex
    while index < arguments.endIndex {
      let argument = arguments[index]
      index += 1
      if argument == "--" {
        rest += arguments[(index - 1)...]
        break
      }
      for (flag, isPath) in [("--spec", false), ("--ksy-path", true), ("-I", true)] {
        var value: String?
        if argument.hasPrefix(flag + "="), flag.hasPrefix("--") {
          value = String(argument.dropFirst(flag.count + 1))
        } else if argument == flag {
          guard index < arguments.endIndex else {
            throw CommandFailure("\(flag) needs \(isPath ? "a directory" : "a file")", status: 64)
          }
          value = arguments[index]
          index += 1
        }
        guard let value else { continue }
        if isPath { searchPaths.append(value) } else { specs.append(value) }
        break
      }
      if !(argument == "--spec" || argument == "--ksy-path" || argument == "-I"
        || argument.hasPrefix("--spec=")
        || argument.hasPrefix("--ksy-path="))
      {
        rest.append(argument)
      }
    }
    if let environment = ProcessInfo.processInfo.environment["KSPATH"] {
      searchPaths += environment.split(separator: ":").map(String.init)
    }
    var added: [CodecCalls] = []
    for path in specs {
      do {
        added.append(.bound(try SpecLoader.load(path: path, searchPaths: searchPaths).codec()))
        loaded.append(path)
      } catch {
        throw CommandFailure(error.description, status: 64)
      }
    }
    return (CommandRun(codecs: added.isEmpty ? codecs : codecs.adding(added), specFiles: loaded), rest)
  }
}
